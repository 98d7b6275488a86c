"""``coffee-companion enroll``: answers from stdin, tags from --tag, the keyboard or a pty
scanner."""
import builtins
import io
import os
import pty
import select
import signal
import threading
import time
import tty

import pytest

from companion.commands import cli
from companion.core import events as ev
from companion.core.catalog import Catalog
from companion.devices.scanner_protocol import Hello, Scan, encode
from companion.core.session import Session
from companion.core.loop import TableLoop
from timing import scaled


@pytest.fixture
def setup(tmp_path):
    cards = tmp_path / "cfg" / "cards.toml"
    conf = tmp_path / "config.toml"
    conf.write_text(f'[catalog]\npaths = ["{cards}"]\n')
    return conf, cards


def enroll(monkeypatch, conf, answers, *args):
    monkeypatch.setattr("sys.stdin", io.StringIO(answers))
    return cli.main(["--config", str(conf), "enroll", *args])


def test_one_tag_from_the_command_line(monkeypatch, capsys, setup):
    conf, cards = setup
    assert enroll(monkeypatch, conf, "Caramel latte\ncoffee, milk, caramel\ny\n",
                  "--tag", "CR0001") == 0
    card = Catalog.load(str(cards)).get("CR0001")
    assert (card.drink, card.recipe, card.specialty, card.edition) == (
        "Caramel latte", ("coffee", "milk", "caramel"), True, "original")
    assert "saved: Caramel latte = coffee + milk + caramel, specialty (original)" in \
        capsys.readouterr().out


def test_ctrl_c_right_after_a_save_still_counts_that_card(monkeypatch, capsys, setup):
    conf, cards = setup
    real_save = Catalog.save

    def save_then_ctrl_c(self, path):          # the user's Ctrl-C lands just after the write
        real_save(self, path)
        raise KeyboardInterrupt

    monkeypatch.setattr(Catalog, "save", save_then_ctrl_c)
    assert enroll(monkeypatch, conf, "Mocha\ncoffee chocolate milk\ny\n",
                  "--tag", "CR0002") == 130
    assert "Stopped. 1 card(s) saved" in capsys.readouterr().out
    assert Catalog.load(str(cards)).get("CR0002").drink == "Mocha"


def test_wrong_answers_are_asked_again(monkeypatch, capsys, setup):
    conf, cards = setup
    answers = "\n".join([
        "",                                   # no name
        "x" * 41,                             # too long
        "Iced tea",
        "tee ice",                            # typo
        "ice",                                # one is not a recipe
        "ice tea water water milk",           # five neither
        "4 7",                                # numbers from the list
        "perhaps",
        "",                                   # default: no
    ]) + "\n"
    assert enroll(monkeypatch, conf, answers, "--tag", "04A1B2C3") == 0
    out = capsys.readouterr().out
    assert "A name is needed" in out and "At most 40 characters" in out
    assert "'tee' is not an ingredient of original" in out and "Did you mean tea?" in out
    assert "2 to 4 ingredients, not 1" in out and "not 5" in out
    assert "Please answer y or n." in out
    card = Catalog.load(str(cards)).get("04A1B2C3")
    assert (card.drink, card.recipe, card.specialty) == ("Iced tea", ("ice", "tea"), False)


def test_winter_cards_use_winter_ingredients(monkeypatch, capsys, setup):
    conf, cards = setup
    assert enroll(monkeypatch, conf, "Hot fruit\ncaramel fruit\nfruit tea\nn\n",
                  "--tag", "W1", "--edition", "winter") == 0
    assert "'caramel' is not an ingredient of winter" in capsys.readouterr().out
    assert Catalog.load(str(cards)).get("W1").recipe == ("fruit", "tea")


def test_typed_tags_until_an_empty_line(monkeypatch, capsys, setup):
    conf, cards = setup
    answers = "CR1\nOne\n1 2\nn\n  CR2  \nTwo\n3 4\ny\n\n"
    assert enroll(monkeypatch, conf, answers) == 0          # no scanner configured
    cat = Catalog.load(str(cards))
    assert list(cat.cards) == ["CR1", "CR2"] and cat.get("CR2").specialty
    assert "Done: 2 card(s) saved" in capsys.readouterr().out


def test_an_enrolled_card_is_kept_unless_replaced(monkeypatch, capsys, setup):
    conf, cards = setup
    enroll(monkeypatch, conf, "Old\ncoffee milk\nn\n", "--tag", "T1")
    assert enroll(monkeypatch, conf, "\n", "--tag", "T1") == 0          # keep (default)
    assert Catalog.load(str(cards)).get("T1").drink == "Old"
    assert enroll(monkeypatch, conf, "y\nNew\nsteam milk\nn\n", "--tag", "T1") == 0
    assert "already enrolled: Old = coffee + milk" in capsys.readouterr().out
    cat = Catalog.load(str(cards))
    assert len(cat) == 1 and cat.get("T1").drink == "New"


def test_ctrl_c_mid_card_leaves_the_file_as_it_was(monkeypatch, capsys, setup):
    conf, cards = setup
    enroll(monkeypatch, conf, "First\ncoffee milk\nn\n", "--tag", "A1")
    before = cards.read_bytes()
    answers = iter(["Second", "coffee"])

    def keyboard(prompt=""):
        try:
            return next(answers)
        except StopIteration:
            raise KeyboardInterrupt from None
    monkeypatch.setattr(builtins, "input", keyboard)
    assert cli.main(["--config", str(conf), "enroll", "--tag", "A2"]) == 130
    assert cards.read_bytes() == before
    assert "0 card(s) saved" in capsys.readouterr().out
    assert [p.name for p in cards.parent.iterdir()] == ["cards.toml"]   # no temp files left


def test_input_ending_mid_card_saves_nothing_of_it(monkeypatch, capsys, setup):
    conf, cards = setup
    assert enroll(monkeypatch, conf, "Half\n", "--tag", "H1") == 1
    assert not cards.exists()
    assert "H1 was not saved" in capsys.readouterr().out


def test_a_catalog_that_cannot_be_read_is_left_alone(monkeypatch, capsys, setup):
    conf, cards = setup
    cards.parent.mkdir()
    cards.write_text("[[card]]\ntag = 5\n")
    assert enroll(monkeypatch, conf, "X\ncoffee milk\nn\n", "--tag", "T") == 2
    assert "catalog error" in capsys.readouterr().err
    assert cards.read_text() == "[[card]]\ntag = 5\n"


def test_a_catalog_that_cannot_be_written_is_a_message(monkeypatch, capsys, setup, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    assert enroll(monkeypatch, setup[0], "X\ncoffee milk\nn\n", "--tag", "T",
                  "--catalog", str(blocker / "cards.toml")) == 1
    assert "Cannot save to" in capsys.readouterr().out


def test_enrolled_cards_are_known_at_the_table(monkeypatch, setup):
    conf, cards = setup
    enroll(monkeypatch, conf, "House special\ntea water\ny\n", "--tag", "CR0007")
    catalog = cli.load_catalog(cli.load_config(type("A", (), {"config": str(conf)})()))
    loop = TableLoop(Session(catalog=catalog))
    loop.post(ev.TouchAction({"do": "setup", "edition": "original", "players": ["Ana", "Ben"]}))
    loop.post(ev.CardScanned("CR0007"))
    loop.post(ev.CardScanned("CR0007"))           # Ana's card again: completed
    ups = loop.drain()
    assert [h.kind for h in ups[1].happened] == ["card_identified"]    # no "enroll this card?"
    done = ups[2].happened[0]
    assert done.kind == "order_completed" and done.specialty


# ---------------------------------------------------------------- tags from the scanner


class Scanner(threading.Thread):
    """Plays the scanner box at the far end of a pty: answers ?HELLO, then scans."""

    def __init__(self, link, cards, scans):
        super().__init__(daemon=True)
        self.master, self.slave = pty.openpty()
        tty.setraw(self.slave)
        os.symlink(os.ttyname(self.slave), link)
        self.cards, self.scans = cards, scans
        self.error = None
        self.cancelled = threading.Event()

    def run(self):
        try:
            got = b""
            while not got.endswith(b"\n"):
                # (generous: under a loaded CI the enroll command may take seconds to start)
                ready, _, _ = select.select([self.master], [], [], scaled(20))
                assert ready, "the enroll command never said ?HELLO"
                got += os.read(self.master, 100)
            os.write(self.master, encode(Hello(0, 1, "0.1.0", "MFRC522", "ok")))
            for n, (tag, wait_for) in enumerate(self.scans, 1):
                os.write(self.master, encode(Scan(n, tag)))
                deadline = time.monotonic() + scaled(20)
                while wait_for not in (self.cards.read_text() if self.cards.exists() else ""):
                    assert time.monotonic() < deadline, f"{wait_for} never saved"
                    self.cancelled.wait(0.01)
        except BaseException as exc:                     # report in the test, not here
            self.error = exc
        finally:
            # The user presses Ctrl-C; also when this fake scanner failed, so that enroll,
            # waiting for a scan, never waits forever (unless the test has moved on).
            if not self.cancelled.is_set():
                os.kill(os.getpid(), signal.SIGINT)

    def close(self):
        os.close(self.master)
        os.close(self.slave)


def test_tags_from_the_configured_scanner_then_ctrl_c(monkeypatch, capsys, tmp_path):
    cards = tmp_path / "cards.toml"
    link = tmp_path / "coffee-scanner"
    conf = tmp_path / "config.toml"
    conf.write_text(f'[catalog]\npaths = ["{cards}"]\n[scanner]\nport = "{link}"\n')
    scanner = Scanner(str(link), cards, [("04A1B2C3D4E5F6", "Flat white"),
                                         ("DEADBEEF", "Mocha")])
    # Ctrl-C is Python's KeyboardInterrupt here whatever an earlier test in this process
    # left as SIGINT's handler (a stop handler set for a service or hub, say: the signal
    # would then be swallowed and this test wait for it forever)
    was = signal.signal(signal.SIGINT, signal.default_int_handler)
    scanner.start()
    try:
        code = enroll(monkeypatch, conf, "Flat white\ncoffee milk\nn\nMocha\n"
                      "coffee chocolate milk\ny\n")
    finally:
        scanner.join(scaled(10))
        scanner.cancelled.set()
        scanner.close()
        signal.signal(signal.SIGINT, was)
    assert scanner.error is None
    assert code == 130
    out = capsys.readouterr().out
    assert "Put a card on the scanner" in out and "scanner connected" in out
    assert "Stopped. 2 card(s) saved" in out
    cat = Catalog.load(str(cards))
    assert cat.get("04A1B2C3D4E5F6").drink == "Flat white" and cat.get("DEADBEEF").specialty


def test_a_scanner_port_that_is_no_port_falls_back_to_typing(monkeypatch, capsys, tmp_path):
    cards = tmp_path / "cards.toml"
    conf = tmp_path / "config.toml"
    conf.write_text(f'[catalog]\npaths = ["{cards}"]\n[scanner]\nport = "bogus://"\n')
    assert enroll(monkeypatch, conf, "T9\nNine\nmilk steam\nn\n\n") == 0
    out = capsys.readouterr().out
    assert "scanner unavailable" in out and "Type the tags instead." in out
    assert Catalog.load(str(cards)).get("T9").drink == "Nine"
