"""What keeps the service's memory flat over a long day (issue 19): what it reads from a
journal that grows by a game every half hour does not grow with it."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from unittest.mock import ANY

import pytest

from companion.core.journal import Journal
from companion.core.session import Session
from companion.outputs.mqtt import publisher

from played_games import finished_game
from service_helpers import table_config
from tests.cafe_fixtures import broker, wait_until  # noqa: F401
from timing import scaled


def test_finished_games_are_read_a_page_at_a_time_and_all_of_them_in_order(tmp_path,
                                                                               monkeypatch):
    path = str(tmp_path / "journal.db")
    for n in range(21):
        finished_game(path, start=1795446000.0 + n * 3600)
    with Journal(path) as journal:                       # a game still being played
        s = Session(journal)
        s.apply_line(json.dumps({"do": "setup", "edition": "original",
                                 "players": ["Ana", "Ben"]}))
    with Journal(path, readonly=True) as journal:
        every = [g.id for g in journal.games("WHERE g.ended_at IS NOT NULL")]
        assert len(every) == 21
        read: list[int] = []
        whole = journal.games

        def games(*args, **kwargs):
            got = whole(*args, **kwargs)
            read.append(len(got))
            return got
        monkeypatch.setattr(journal, "games", games)
        assert [g.id for g in publisher.finished_games(journal, page=4)] == every
        assert max(read) <= 4 and sum(read) == 21 + 1     # (the newest game's number: 1)


def _journal_reads(publisher_, read: list[int]) -> None:
    """Count the game records each of the publisher's journal reads returns."""
    journal = publisher_._journal()
    whole = journal.games

    def games(*args, **kwargs):
        got = whole(*args, **kwargs)
        read.append(len(got))
        return got
    journal.games = games


def test_a_game_ending_reads_its_own_result_not_the_whole_journal(broker, tmp_path):
    from cafe_simulate import SimulatedTable, table_settings
    folder = tmp_path / "tables"
    folder.mkdir()
    for n in range(30):                         # a journal of a month's games
        finished_game(folder / "t1.db", start=1795446000.0 + n * 3600)
    t = SimulatedTable(str(folder), table_settings("127.0.0.1", broker.port, "cafe", "t1"),
                       seed=3, durable=False, reconnect_min=0.1).start()
    try:
        assert wait_until(lambda: t.publisher.counts["results_acked"] == 30)   # on connect
        read: list[int] = []
        _journal_reads(t.publisher, read)
        t.play_game()
        assert wait_until(lambda: t.publisher.counts["results_acked"] == 31)
        assert read and max(read) == 1         # this game's record only, never a page
    finally:
        t.close()


def test_the_acknowledgements_kept_stay_a_few_games_however_long_the_journal(
        broker, tmp_path, monkeypatch):
    from cafe_simulate import SimulatedTable, table_settings
    monkeypatch.setattr(publisher, "ACKS_KEPT", 3)
    folder = tmp_path / "tables"
    folder.mkdir()
    for n in range(5):
        finished_game(folder / "t1.db", start=1795446000.0 + n * 3600)
    acks = folder / "t1.db.mqtt-acked.json"
    t = SimulatedTable(str(folder), table_settings("127.0.0.1", broker.port, "cafe", "t1"),
                       seed=3, durable=False, reconnect_min=0.1).start()
    try:
        assert wait_until(lambda: t.publisher.counts["results_acked"] == 5)
        assert json.loads(acks.read_text())["through"] == 0      # (all in flight then)
        t.play_game()        # five marks kept: games 1-5 are settled (game 6 followed)
        assert wait_until(lambda: t.publisher.counts["results_acked"] == 6)
        assert json.loads(acks.read_text()) == {"through": 5, "acked": {"6": ANY}}
        t.play_game()
        assert wait_until(lambda: t.publisher.counts["results_acked"] == 7)
        assert list(json.loads(acks.read_text())["acked"]) == ["6", "7"]
        t.publisher.close()
        again = publisher.MqttPublisher(t.settings, t.journal_path, t.loop.snapshot,
                                        reconnect_min=0.1)
        read: list[int] = []
        _journal_reads(again, read)
        again.start()
        try:
            assert again.connected.wait(scaled(5))
            assert wait_until(lambda: json.loads(acks.read_text())["through"] == 6)
            assert list(json.loads(acks.read_text())["acked"]) == ["7"]   # 7 may change
            assert again.counts["results"] == 0       # nothing sent twice
            assert max(read) == 2              # games 6 and 7, not the settled ones
        finally:
            again.close()
    finally:
        t.close()


def test_a_damaged_acknowledgement_file_only_costs_duplicates(tmp_path, caplog):
    path = tmp_path / "journal.db.mqtt-acked.json"
    path.write_text('{"through": 4, "acked": {"seven": "abc"}}')
    acks = publisher.AckFile(str(tmp_path / "journal.db") + ".mqtt-acked.json")
    assert acks.through == 0 and acks.acked == {}
    assert "every finished game is sent again" in caplog.text
    acks.mark(7, "abc")
    acks.settled_through(6)
    assert json.loads(path.read_text()) == {"through": 6, "acked": {"7": "abc"}}


def test_the_kept_qr_code_is_a_byte_a_pixel_and_draws_the_same_pixels():
    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    import pygame
    from companion.outputs.screen import theme
    from companion.outputs.screen.screens import end
    from companion.review import bgstats

    link = "https://app.bgstatsapp.com/createPlay.html?data=%7B%22a%22%3A1%7D"
    kept = end.qr_surface(link, 301)
    assert kept.get_bytesize() == 1 and kept.get_size() == (301, 301)
    modules = [list(row) for row in bgstats.qr(link).matrix_iter(border=2)]
    n = len(modules)
    full = pygame.Surface((n, n), depth=32)          # the code as 32-bit pixels were drawn
    full.fill(theme.WHITE)
    for y, row in enumerate(modules):
        for x, dark in enumerate(row):
            if dark:
                full.set_at((x, y), theme.BLACK)
    want, got = pygame.Surface((301, 301), depth=32), pygame.Surface((301, 301), depth=32)
    want.blit(pygame.transform.scale(full, (301, 301)), (0, 0))
    got.blit(kept, (0, 0))
    # (the same 32-bit format: their pixel bytes compare; pygame 2.1.2 has no image.tobytes)
    assert got.get_buffer().raw == want.get_buffer().raw


def test_a_table_without_a_scanner_does_not_import_pyserial(tmp_path):
    cfg = table_config(tmp_path)
    code = f"""
import sys

import pytest
from companion.appliance import config
from companion.appliance.service import Service
svc = Service(config.load({cfg!r}, required=True), headless=True)
svc.start_inputs()
status = svc.device_status()
svc.shutdown()
print(status["scanner"], "serial" in sys.modules, "companion.devices.scanner" in sys.modules)
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=scaled(60), env={**os.environ, "SDL_VIDEODRIVER": "dummy"})
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["off", "False", "False"]


def test_asking_which_font_has_a_letter_leaves_no_font_file_mapped():
    import pygame
    from companion.words import fonts
    files = fonts.find_font_files()
    if files.latin is None or files.hangul is None:
        pytest.skip("needs DejaVu and a Korean font (apt install fonts-dejavu fonts-nanum)")
    pygame.font.init()
    fonts._covered.clear()                         # every question asked afresh
    chain = fonts.FontBook(files=files).font(23)
    assert [i for i, _ in chain.runs("José · 주문 …")] == [0, 1, 0]
    assert fonts._covered[(files.latin, "é")] and not fonts._covered[(files.latin, "주")]
    assert fonts._covered[(files.hangul, "주")]
    with open("/proc/self/maps") as fh:
        mapped = fh.read()
    assert files.latin not in mapped and files.hangul not in mapped
