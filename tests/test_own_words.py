"""Malformed JSON and TOML told in the companion's own words, with line and column, in the
five languages (issue 37): a config or catalog that is no TOML, and every file or message
the companion reads as JSON (the paired phones, the broker's acknowledgements, the café's
messages, an update's marks). Never the interpreter's own message: these tests take
tomllib's and json's texts at run time, only to show they are not what people see."""
import json
import logging
import tomllib

import pytest

from companion.appliance import config, faults, updates
from companion.appliance.config import LANGUAGES, TomlProblem
from companion.core.catalog import Catalog, CatalogError
from companion.core.rules import json_text
from companion.outputs.screen.settings_store import SettingsStore
from companion.words.i18n import json_problem_text, toml_problem_text, tr


def tomllib_says(text: str) -> str:
    """tomllib's own words for ``text``, without where (whatever they are on this Python)."""
    with pytest.raises(tomllib.TOMLDecodeError) as err:
        tomllib.loads(text)
    return str(err.value).split(" (at ")[0]


def json_says(text: str) -> str:
    with pytest.raises(json.JSONDecodeError) as err:
        json.loads(text)
    return err.value.msg


@pytest.mark.parametrize("text,problem", [
    ('[game]\nlanguage = es\n', TomlProblem("unquoted_text", 2, 12, "es")),
    ('[seats\n', TomlProblem("unclosed_header", 1, 7)),
    ('[game]\nlanguage = "es\n', TomlProblem("unclosed_text", 2, 15)),
    ('[game]\nlanguage = "es"\nlanguage = "en"\n', TomlProblem("duplicate_key", 3, 16,
                                                             "language")),
    ('[game]\n[sound]\n[game]\n', TomlProblem("duplicate_section", 3, 6, "game")),
    ('[sound]\nvolume\n', TomlProblem("no_equals", 2, 7)),
    ('[sound] loud\n', TomlProblem("bad_header", 1, 9)),
    ('[seats]\npins = [17,, 27]\n', TomlProblem("invalid", 2, 12)),
])
def test_a_config_that_is_no_toml_says_where_and_what_in_our_words(tmp_path, text, problem):
    path = tmp_path / "config.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(config.ConfigError) as err:
        config.load(str(path))
    assert err.value.toml == problem
    said = err.value.problems
    assert said == [f"{path}, line {problem.line}, column {problem.column}: "
                    + config.TOML_ENGLISH[problem.what].format(item=problem.item)]
    assert tomllib_says(text) not in said[0]
    for lang in LANGUAGES:
        told = toml_problem_text(lang, str(path), problem)
        assert str(problem.line) in told and str(problem.column) in told and str(path) in told
        assert told == tr(lang, "toml.at", path=str(path), line=problem.line,
                          column=problem.column,
                          problem=tr(lang, "toml." + problem.what, item=problem.item))
        assert lang == "en" or told != toml_problem_text("en", str(path), problem)


def test_the_toml_words_are_the_same_in_the_code_and_the_english_locale():
    for key, english in config.TOML_ENGLISH.items():
        assert tr("en", "toml." + key, path="{path}", line="{line}", column="{column}",
                  problem="{problem}", item="{item}") == english, key


def test_bytes_that_are_not_utf8_are_told_with_where(tmp_path):
    path = tmp_path / "config.toml"
    path.write_bytes(b'[game]\nlanguage = "\xe9s"\n')
    with pytest.raises(config.ConfigError) as err:
        config.load(str(path))
    assert err.value.toml == TomlProblem("not_text", 2, 13, "0xE9")
    assert "codec" not in err.value.problems[0]


def test_the_start_up_screen_says_it_in_the_language_the_broken_file_names(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text('[game]\nlanguage = "ko"\n\n[sound]\nvolume = loud\n', encoding="utf-8")
    with pytest.raises(config.ConfigError) as err:
        config.load(str(path))
    assert faults.screen_language(None, str(path)) == "ko"
    fault = faults.config_fault(err.value, str(path))
    assert fault.detail == toml_problem_text("ko", str(path),
                                             TomlProblem("unquoted_text", 5, 10, "loud"))
    assert "5번째 줄 10번째 칸" in fault.detail


def test_a_catalog_and_the_screen_settings_that_are_no_toml(tmp_path, caplog):
    cards = tmp_path / "cards.toml"
    cards.write_text('[[card]]\ntag = 04A1\n', encoding="utf-8")
    with pytest.raises(CatalogError) as err:
        Catalog.load(str(cards))
    assert str(err.value) == (f"{cards}, line 2, column 8: `04A1` needs double quotes: "
                              '"04A1" (true and false are written in lower case, without '
                              "quotes)")
    settings = tmp_path / "screen-settings.toml"
    settings.write_text("volume = \n", encoding="utf-8")
    with caplog.at_level(logging.WARNING):
        SettingsStore(str(settings)).load()
    assert f"{settings}, line 1, column 10: " in caplog.text
    assert tomllib_says("volume = \n") not in caplog.text


# --- JSON ----------------------------------------------------------------------------------

def test_json_problems_in_english_and_in_the_five_languages():
    text = '{"phones": [\n  {"id": "a",}\n]}'
    problem = json_text.loads(text)
    assert problem == json_text.JsonProblem("comma_before_close", 2, 13, "}")
    assert problem.english() == "line 2, column 13: a comma before `}`"
    with pytest.raises(ValueError) as err:
        json_text.read(text.encode())
    assert str(err.value) == problem.english() and json_says(text) not in str(err.value)
    for lang in LANGUAGES:
        told = json_problem_text(lang, problem)
        assert "2" in told and "13" in told and "}" in told
        assert lang == "en" or told != json_problem_text("en", problem)
    with pytest.raises(ValueError) as err:
        json_text.read(b'{"a":\n "\xff"}')
    assert str(err.value) == "line 2, column 3: byte 0xFF is not UTF-8 text"


def test_a_damaged_phones_file_is_logged_in_our_words(tmp_path, caplog):
    from companion.outputs.web.pairing import Pairing
    store = tmp_path / "paired-phones.json"
    text = '{"phones": [{"id": "a", "name": "Ana\'s phone",}]}'
    store.write_text(text, encoding="utf-8")
    with caplog.at_level(logging.WARNING):
        Pairing(store=str(store))
    assert "line 1, column 46: a comma before `}`" in caplog.text
    assert json_says(text) not in caplog.text


def test_a_damaged_acknowledgements_file_is_logged_in_our_words(tmp_path, caplog):
    from companion.outputs.mqtt.publisher import AckFile
    path = tmp_path / "mqtt-acks.json"
    path.write_text('{"acked": {"1": "x"}, "through": 1', encoding="utf-8")
    with caplog.at_level(logging.WARNING):
        AckFile(str(path))
    assert "line 1, column 1: the `{` here is never closed" in caplog.text


def test_the_hub_says_where_a_message_stops_being_json(tmp_path, caplog):
    from companion.cafe.hub import Hub
    from companion.cafe.store import Store
    from cafe_simulate import table_settings
    hub = Hub(table_settings("127.0.0.1", 1, "cafe", "-"), Store(str(tmp_path / "c.db")))
    with caplog.at_level(logging.WARNING):
        assert hub.handle("coffee-rush/cafe/t1/state", b"{'status': 1}") == "bad"
    assert "not JSON (line 1, column 2: texts and keys go in double quotes" in caplog.text
    assert json_says("{'status': 1}") not in caplog.text


def test_an_unreadable_update_mark_says_what_is_wrong(tmp_path):
    layout = updates.Layout(str(tmp_path / "opt"))
    (tmp_path / "opt").mkdir()
    with open(layout.pending, "w", encoding="utf-8") as fh:
        fh.write('{"from": "1.0-a", "to": "1.1-b"')
    updater = updates.Updater(layout, None, str(tmp_path / "journal.db"))   # reads only
    with pytest.raises(updates.UpdateError) as err:
        updater._pending()
    assert "(line 1, column 1: the `{` here is never closed)" in str(err.value)
