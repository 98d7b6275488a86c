"""The aarch64 counts of benchmarks/callgrind_hot_paths.py --arm: reading what the counting
plugin (benchmarks/arm/insn_count.c) writes, and the markers the measured process sends."""
import pygame
import pytest

from benchmarks import callgrind_hot_paths as cg


def lines(text: str) -> list[list[str]]:
    return [line.split() for line in text.strip().splitlines()]


def test_each_update_costs_its_stretch_less_one_marker():
    # markers 1, 2 and 3 back to back (the first call costs more): a marker costs 40;
    # then updates closed by 4, 5 and 6
    got = cg.marked_costs(lines("""
        mark 1 1000 900
        mark 2 1070 970
        mark 3 1110 1010
        mark 4 6110 6010
        mark 5 6150 6050
        mark 6 9190 9090
        exit 9500 9400
    """))
    assert got == [4960, 0, 3000]


def test_markers_out_of_order_or_missing_are_refused():
    with pytest.raises(RuntimeError, match="out of order"):
        cg.marked_costs(lines("mark 1 10 10\nmark 3 20 20\nmark 2 30 30"))
    with pytest.raises(RuntimeError, match="too few"):
        cg.marked_costs(lines("mark 1 10 10\nmark 2 15 15\nexit 20 20"))


def test_the_exit_line_gives_all_threads_and_the_main_one():
    assert cg.exit_counts(lines("mark 1 5 5\nexit 700 650")) == (700, 650)
    for text in ("mark 1 5 5", "exit 1 1\nexit 2 2"):
        with pytest.raises(RuntimeError, match="exit lines"):
            cg.exit_counts(lines(text))


def test_marking_keeps_display_updates_working(monkeypatch):
    """Off qemu the marker is an unknown system call (ENOSYS): every update still reaches
    pygame's own, with its arguments and its answer."""
    got = []

    def update(*args):
        got.append(args)
        return len(got)

    monkeypatch.setattr(pygame.display, "update", update)
    cg.mark_display_updates()
    assert pygame.display.update is not update
    rects = [pygame.Rect(0, 0, 10, 10)]
    assert pygame.display.update(rects) == 1
    assert pygame.display.update() == 2
    assert got == [(rects,), ()]


def test_a_games_counts_keep_deadline_frames_out_of_the_taps(tmp_path):
    """A frame a deadline drew while the table was idle ("timer", on the game's own clock)
    is reported on its own, not added to the tap after it."""
    import json
    labels = [["start", 0], ["timer", 0], ["ahead", 0], ["press", 1], ["tap", 1], ["tap", 1],
              ["timer", 1], ["ahead", 1], ["ahead", 1], ["press", 2], ["tap", 2], ["scan", 3]]
    costs = [900, 7, 50, 3, 10, 20, 8, 40, 60, 4, 30, 99]
    path = tmp_path / "labels.json"
    path.write_text(json.dumps(labels))
    got = cg._game_counts("game", str(path), costs)
    assert got.taps == [30, 30] and got.presses == [3, 4] and got.scans == [99]
    assert got.timers == [7, 8] and got.ahead == [50, 40, 60] and got.idle == [50, 100]


def test_a_games_taps_and_scans_are_counted_from_their_arrival(tmp_path):
    """An input that arrives as an idle step begins waits for all of it: each scan and each
    finger going down (the pressed look) adds the largest step (painted ahead or a deadline's
    frame) before it to its own work; a finger lifting (the tap's answer) adds the largest
    step the App took while it was down ("held"; that before it went down was over before
    the pressed look). The verdict holds the largest step to its own budget."""
    import json
    labels = [["start", 0], ["timer", 0], ["ahead", 0], ["press", 1], ["tap", 1], ["tap", 1],
              ["timer", 1], ["ahead", 1], ["ahead", 1], ["press", 2], ["held", 2],
              ["held", 2], ["tap", 2], ["ahead", 2], ["scan", 3], ["device", 4]]
    costs = [900, 7, 50, 3, 10, 20, 8, 40, 60, 4, 25, 15, 30, 5, 99, 11]
    path = tmp_path / "labels.json"
    path.write_text(json.dumps(labels))
    got = cg._game_counts("game", str(path), costs)
    assert got.tap_arrivals == [0 + 30, 25 + 30] and got.scan_arrivals == [5 + 99]
    assert got.press_arrivals == [50 + 3, 60 + 4] and got.presses == [3, 4]
    assert got.waits == [50, 60, 5, 25] and got.devices == [11] and got.scans == [99]
    assert got.ahead == [50, 40, 60, 25, 15, 5]
    assert cg._verdict(got) == "PASS"
    big = got._replace(waits=[cg.TARGETS["idle_step"] + 1])
    assert cg._verdict(big) == "FAIL"
    slow_press = got._replace(press_arrivals=[cg.TARGETS["tap_to_frame"] + 1])
    assert cg._verdict(slow_press) == "FAIL"
