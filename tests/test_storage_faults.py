"""Storage faults injected into a live `coffee-companion run --headless` (strace's
`-e inject`): a full card and a failing card, while a paired phone posts actions.

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

from companion.journal import Journal

STRACE = shutil.which("strace")
pytestmark = pytest.mark.skipif(STRACE is None,
                                reason="strace is not installed (.ci/run installs it)")
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOKEN = "test-phone-token-" + "x" * 30


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(tmp_path, error: str, when: str):
    """The service under strace, pwrite64 failing with ``error`` for the calls ``when``
    (counted per thread: the main thread writes about 8 while opening the journal, the
    table loop's writes after that are the actions', about 2 each), and a phone already
    paired (its hashed token beside the journal, as pairing leaves it)."""
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
    cmd = [STRACE, "-f", "-qq", "-o", "/dev/null", "-e", "trace=pwrite64",
           "-e", f"inject=pwrite64:error={error}:when={when}",
           sys.executable, "-m", "companion", "--config", str(cfg), "run", "--headless"]
    env = {**os.environ, "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy",
           "PYTHONPATH": ROOT}
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
            line = lines.get(timeout=30)
        except queue.Empty:
            proc.kill()
            raise AssertionError("the service did not start: " + "".join(log)) from None
        if line is None:
            raise AssertionError("the service stopped: " + "".join(log))
        log.append(line)
        if "phones open the table" in line:
            return proc, f"http://127.0.0.1:{port}", lines, log


def post(url: str, action: dict, lang: str = "en") -> httpx.Response:
    return httpx.post(url + "/api/action", json=action, timeout=10,
                      headers={"Authorization": f"Bearer {TOKEN}", "Accept-Language": lang})


def stop(proc, lines: queue.Queue, log: list) -> str:
    """SIGTERM the service (strace's child); it must stop cleanly and soon."""
    with open(f"/proc/{proc.pid}/task/{proc.pid}/children") as fh:
        children = fh.read().split()
    assert children, "strace has no child"
    os.kill(int(children[0]), signal.SIGTERM)
    assert proc.wait(timeout=15) == 0, "".join(log)
    while (line := lines.get(timeout=5)) is not None:
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
