import os
import subprocess
import sys

import pytest

from companion.appliance import config

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def write(tmp_path, text):
    p = tmp_path / "config.toml"
    p.write_text(text, encoding="utf-8")
    return str(p)


def test_defaults_come_from_the_schema():
    cfg = config.load(None)
    for section, keys in config.SCHEMA.items():
        for k in keys:
            assert cfg[section][k.name] == k.default
            assert config._problem(k, k.default) is None, f"default of {section}.{k.name} invalid"


def test_each_section_has_a_typed_view_of_its_values(tmp_path):
    cfg = config.load(write(tmp_path, '[seats]\npins = [5, 6]\nhold_seconds = 2\n'))
    assert cfg.seats.pins == [5, 6] and cfg.seats.hold_seconds == 2.0
    assert cfg.scanner.baudrate == 115200 and cfg.game.language == "en"
    for section, cls in config.SECTIONS.items():
        view = getattr(cfg, section)
        assert isinstance(view, cls)
        assert {k.name: getattr(view, k.name) for k in config.SCHEMA[section]} == cfg[section]
    cfg["display"]["driver"] = "dummy"                  # the view reads the values when asked
    assert cfg.display.driver == "dummy"


def test_a_default_list_is_not_shared_between_configs():
    one, two = config.defaults(), config.defaults()
    one["seats"]["pins"].append(5)
    assert two["seats"]["pins"] == [17, 27, 22, 23] == config.SeatsSettings().pins


def test_values_from_a_file_override_defaults(tmp_path):
    cfg = config.load(write(tmp_path, '[seats]\npins = [5, 6]\nhold_seconds = 2\n'))
    assert cfg["seats"]["pins"] == [5, 6] and cfg["seats"]["hold_seconds"] == 2.0
    assert "seats.pins" in cfg.from_file


@pytest.mark.parametrize("text,message", [
    ("[seats]\nhold_seconds = \"long\"\n", "[seats] hold_seconds must be a number"),
    ("[seats]\nhold_second = 1.0\n", "hold_second is not a setting (did you mean hold_seconds?)"),
    ("[seat]\npins = [1, 2]\n", "[seat] is not a section (did you mean [seats]?)"),
    ("[pixels]\nbrightness = 3\n", "[pixels] brightness must be from 0 to 1, not 3"),
    ("[game]\nlanguage = \"fr\"\n", "[game] language must be one of en, es, pt, it, ko"),
    ("[seats]\npins = [17]\n", "give 2 to 4 pins"),
    ("[seats]\npins = [17, 24]\n", "pin 24 is used twice"),
    ("[sound]\nenabled = 1\n", "[sound] enabled must be true or false"),
    ("[seats\n", "line 1, column 7: a section name needs its closing `]`"),
])
def test_errors_name_the_file_the_key_and_the_problem(tmp_path, text, message):
    path = write(tmp_path, text)
    with pytest.raises(config.ConfigError) as err:
        config.load(path)
    assert path in str(err.value) and message in str(err.value)


def test_every_problem_is_reported_at_once(tmp_path):
    with pytest.raises(config.ConfigError) as err:
        config.load(write(tmp_path, "[seats]\nbounce_ms = -1\n[sound]\nvolume = 9\n"))
    assert len(err.value.problems) == 2


def test_docs_file_is_generated_from_the_schema():
    with open(os.path.join(ROOT, "docs", "configuration.md"), encoding="utf-8") as fh:
        assert fh.read() == config.docs(), \
            "run: coffee-companion config docs > docs/configuration.md"


def run_cli(*args):
    return subprocess.run([sys.executable, "-m", "companion", *args], capture_output=True,
                          text=True, cwd=ROOT, env=dict(os.environ, PYTHONPATH=ROOT))


def test_config_check_and_show_cli(tmp_path):
    good = write(tmp_path, "[sound]\nvolume = 0.5\n")
    r = run_cli("--config", good, "config", "check")
    assert r.returncode == 0 and "OK" in r.stdout
    r = run_cli("--config", good, "config", "show")
    assert "volume = 0.5" in r.stdout and "(from file)" in r.stdout
    bad = write(tmp_path, "[sound]\nvolume = \"loud\"\n")
    r = run_cli("--config", bad, "config", "check")
    assert r.returncode == 2 and "config error:" in r.stderr and "volume" in r.stderr
    assert "Traceback" not in r.stderr
    r = run_cli("--config", str(tmp_path / "missing.toml"), "config", "check")
    assert r.returncode == 2 and "no such config file" in r.stderr


def test_mqtt_password_and_database_password_never_show(tmp_path):
    path = tmp_path / "c.toml"
    path.write_text('[mqtt]\nhost = "broker.lan"\npassword = "s3cret"\n'
                    '[cafe]\ndatabase = "postgresql+psycopg://hub:pw9@db.lan/cafe"\n')
    shown = config.show(config.load(str(path), required=True))
    assert "s3cret" not in shown and "pw9" not in shown
    assert 'password = "********"' in shown
    assert 'database = "postgresql+psycopg://hub:********@db.lan/cafe"' in shown


def test_a_table_name_that_cannot_be_a_topic_level_is_refused(tmp_path):
    path = tmp_path / "c.toml"
    path.write_text('[mqtt]\ntable = "tables/+"\n')
    with pytest.raises(config.ConfigError) as err:
        config.load(str(path), required=True)
    assert "[mqtt] table must be 1 to 64 letters, digits, - or _" in str(err.value)


def test_the_cli_says_a_file_that_is_no_toml_in_its_own_language(tmp_path, capsys):
    """Not tomllib's English: our words, with line and column, in the language the file's
    [game] section names (English when it names none)."""
    from companion.commands.cli import main
    from companion.words.i18n import tr
    spanish = write(tmp_path, '[game]\nlanguage = "es"\n[sound]\nvolume 0.5\n')
    assert main(["--config", spanish, "config", "check"]) == 2
    said = capsys.readouterr().err
    assert said.startswith("config error: ") and "línea 4, columna" in said
    assert tr("es", "toml.no_equals") in said and "Traceback" not in said
    plain = write(tmp_path, "[sound]\nvolume 0.5\n")
    assert main(["--config", plain, "config", "check"]) == 2
    said = capsys.readouterr().err
    assert "line 2, column" in said and tr("en", "toml.no_equals") in said
