"""Storage faults injected into a live `coffee-companion run --headless` (strace's
`-e inject`): a full card and a failing card, while a paired phone posts actions; and a card
turned read-only mid-game (an LD_PRELOAD shim, ``fixtures/read_only_card.c``).

Checked each time: every acknowledged action (200) is in the journal after the stop and no
refused one is; the refusals say what the fault is, in words (a full card is "full", never
"failing"); actions are accepted again once the fault has passed; the stop is clean; the
journal's `integrity_check` is ok. Bounded: about 40 actions, on loopback, timeouts on every
wait (no sleeps).
"""
from __future__ import annotations

import hashlib
import json
import os
import queue
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import threading

import httpx
import pytest

from companion.core.journal import Journal
from timing import scaled

STRACE = shutil.which("strace")
pytestmark = pytest.mark.skipif(STRACE is None,
                                reason="strace is not installed (.ci/run installs it)")
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOKEN = "test-phone-token-" + "x" * 30


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(tmp_path, error: str = "", when: str = "", preload: dict | None = None):
    """The service under strace, pwrite64 failing with ``error`` for the calls ``when``
    (counted per thread: the main thread writes about 8 while opening the journal, the
    table loop's writes after that are the actions', about 2 each), and a phone already
    paired (its hashed token beside the journal, as pairing leaves it). With ``preload``
    (environment for an LD_PRELOAD shim) the service runs under that shim instead."""
    state = tmp_path / "state"
    state.mkdir()
    digest = hashlib.sha256(TOKEN.encode()).hexdigest()
    (state / "paired-phones.json").write_text(json.dumps({"phones": [
        {"id": digest[:12], "name": "test", "paired_at": 0.0, "digest": digest}]}))
    Journal(str(state / "journal.db")).close()   # made before: the faults hit the actions
    port = free_port()
    cfg = tmp_path / "config.toml"
    cfg.write_text(f'[journal]\npath = "{state / "journal.db"}"\n'
                   f'[web]\nbind = "127.0.0.1"\nport = {port}\nmdns = false\n'
                   '[seats]\ndriver = "simulated"\n[pixels]\ndriver = "simulated"\n'
                   '[sound]\nenabled = false\n[voice]\nenabled = false\n', encoding="utf-8")
    cmd = [sys.executable, "-m", "companion", "--config", str(cfg), "run", "--headless"]
    if preload is None:
        cmd = [STRACE, "-f", "-qq", "-o", "/dev/null", "-e", "trace=pwrite64",
               "-e", f"inject=pwrite64:error={error}:when={when}"] + cmd
    env = {**os.environ, "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy",
           "PYTHONPATH": ROOT, **(preload or {})}
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            env=env)
    lines: queue.Queue = queue.Queue()

    def read() -> None:
        for x in proc.stderr:
            lines.put(x)
        lines.put(None)                  # the stream ended: the process is gone
    threading.Thread(target=read, daemon=True).start()
    log = []
    while True:                          # until the phone view is up (or the process died)
        try:
            line = lines.get(timeout=scaled(30))
        except queue.Empty:
            proc.kill()
            raise AssertionError("the service did not start: " + "".join(log)) from None
        if line is None:
            raise AssertionError("the service stopped: " + "".join(log))
        log.append(line)
        if "phones open the table" in line:
            return proc, f"http://127.0.0.1:{port}", lines, log


def post(url: str, action: dict, lang: str = "en") -> httpx.Response:
    return httpx.post(url + "/api/action", json=action, timeout=scaled(10),
                      headers={"Authorization": f"Bearer {TOKEN}", "Accept-Language": lang})


def stop(proc, lines: queue.Queue, log: list, under_strace: bool = True) -> str:
    """SIGTERM the service (strace's child); it must stop cleanly and soon."""
    if under_strace:
        with open(f"/proc/{proc.pid}/task/{proc.pid}/children") as fh:
            children = fh.read().split()
        assert children, "strace has no child"
        os.kill(int(children[0]), signal.SIGTERM)
    else:
        os.kill(proc.pid, signal.SIGTERM)
    assert proc.wait(timeout=scaled(15)) == 0, "".join(log)
    while (line := lines.get(timeout=scaled(5))) is not None:
        log.append(line)
    return "".join(log)


def play(url: str, lang: str) -> tuple[list[dict], list[httpx.Response]]:
    """A setup, then corrections; (the acknowledged actions, the refusals)."""
    acked, refused = [], []
    actions = [{"do": "setup", "edition": "original", "players": ["Ana", "Ben"]}]
    actions += [{"do": "correct", "player": "Ana", "likes": n} for n in range(1, 40)]
    for action in actions:
        r = post(url, action, lang)
        if r.status_code == 200:
            acked.append(action)
        else:
            assert r.status_code == 422, r.text
            refused.append(r)
    return acked, refused


def journal_lines(tmp_path) -> list[dict]:
    path = str(tmp_path / "state" / "journal.db")
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    db.close()
    with Journal(path, readonly=True) as j:
        return [json.loads(x) for g in j.games() for x in j.lines(g.id)]


@pytest.mark.parametrize("error,code,words,lang", [
    ("ENOSPC", "storage_full", "the SD card is full", "en"),
    ("ENOSPC", "storage_full", "la tarjeta SD está llena", "es"),
    ("EIO", "storage_failing", "the SD card reported an error", "en"),
])
def test_a_storage_fault_loses_no_acknowledged_action_and_says_what_it_is(
        tmp_path, error, code, words, lang):
    proc, url, lines, log = start(tmp_path, error, "30..40")
    try:
        acked, refused = play(url, lang)
    finally:
        text = stop(proc, lines, log)
    assert refused, "the fault never reached the journal"
    for r in refused:
        body = r.json()
        assert body["rejection"]["code"] == code and words.lower() in body["message"].lower()
        assert "nothing changed" in body["rejection"]["text"]
    if code == "storage_full":
        assert "failing" not in text                     # a full card is no failing card
    assert "action not saved" in text and "Traceback" not in text
    # the fault passed: the last actions were accepted again
    assert acked[-1] == {"do": "correct", "player": "Ana", "likes": 39}
    # acknowledged = stored, in order; nothing refused came back
    assert journal_lines(tmp_path) == acked


SHIM = os.path.join(ROOT, "tests", "fixtures", "read_only_card.c")


@pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler for the LD_PRELOAD shim")
def test_a_card_turned_read_only_mid_game_is_named_read_only_and_loses_nothing(tmp_path):
    """The kernel remounts a failing SD card read-only mid-game (an open journal cannot be
    remounted in a test, so the shim ``fixtures/read_only_card.c`` does it at the libc seam:
    writes under the journal's folder fail with EROFS and statvfs says ST_RDONLY while a
    flag file exists). The refusals say "read-only" (never "full" or "failing"), nothing
    acknowledged is lost, nothing refused is stored, and once the card is writable again
    the actions are taken again; the stop is clean."""
    shim = tmp_path / "read_only_card.so"
    subprocess.run(["cc", "-shared", "-fPIC", "-o", str(shim), SHIM, "-ldl"], check=True,
                   timeout=scaled(60))
    flag = tmp_path / "card-is-read-only"
    proc, url, lines, log = start(tmp_path, preload={
        "LD_PRELOAD": str(shim), "COFFEE_RO_FLAG": str(flag),
        "COFFEE_RO_DIR": str(tmp_path / "state")})
    acked, refused = [], []
    try:
        actions = [{"do": "setup", "edition": "original", "players": ["Ana", "Ben"]}]
        actions += [{"do": "correct", "player": "Ana", "likes": n} for n in range(1, 13)]
        for k, action in enumerate(actions):
            if k == 5:
                flag.touch()                     # the card goes read-only
            if k == 9:
                flag.unlink()                    # a new card, or the remount put right
            r = post(url, action, "it" if k % 2 else "en")
            if r.status_code == 200:
                acked.append(action)
            else:
                assert r.status_code == 422, r.text
                refused.append((k, r.json()))
    finally:
        text = stop(proc, lines, log, under_strace=False)
    assert [k for k, _ in refused] == [5, 6, 7, 8]
    for k, body in refused:
        assert body["rejection"]["code"] == "storage_read_only"
        assert ("read-only" if k % 2 == 0 else "sola lettura") in body["message"].lower()
    assert "failing" not in text and "is full" not in text and "Traceback" not in text
    assert "action not saved" in text and "read-only" in text
    assert journal_lines(tmp_path) == acked and acked[-1]["likes"] == 12
