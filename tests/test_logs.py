"""The service's log under systemd: journald priorities, words, no ALSA chatter; --version."""
import logging
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from companion import __version__, cli, logs
from service_helpers import table_config

ROOT = Path(__file__).resolve().parent.parent


def test_each_level_gets_its_journald_priority():
    fmt = logs.JournalFormatter("%(message)s")
    lines = [fmt.format(logging.LogRecord("companion.x", level, "f", 1, "two\nlines", (), None))
             for level in (logging.DEBUG, logging.INFO, logging.WARNING, logging.ERROR,
                           logging.CRITICAL)]
    assert lines == [f"<{p}>companion.x: two\n<{p}>lines" for p in (7, 6, 4, 3, 2)]


def test_journald_is_recognised_by_its_stream(tmp_path):
    with open(tmp_path / "err", "w") as fh:
        st = os.fstat(fh.fileno())
        assert logs.under_journald(fh, {"JOURNAL_STREAM": f"{st.st_dev}:{st.st_ino}"})
        assert not logs.under_journald(fh, {"JOURNAL_STREAM": f"{st.st_dev}:{st.st_ino + 1}"})
        assert not logs.under_journald(fh, {})


def test_the_service_logs_with_priorities_and_without_alsa_chatter(tmp_path):
    cfg = table_config(tmp_path, sound=True)
    notify = tmp_path / "notify"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(str(notify))
    sock.settimeout(20)
    err_path = tmp_path / "stderr"
    with open(err_path, "w") as err:
        st = os.fstat(err.fileno())
        # the real ALSA driver on a machine without a sound card: libasound talks
        env = dict(os.environ, JOURNAL_STREAM=f"{st.st_dev}:{st.st_ino}", SDL_AUDIODRIVER="alsa",
                   NOTIFY_SOCKET=str(notify), SDL_VIDEODRIVER="dummy")
        proc = subprocess.Popen([sys.executable, "-m", "companion", "--config", cfg, "run",
                                 "--log-level", "debug"], env=env, stderr=err,
                                stdout=subprocess.DEVNULL)
        try:
            while not sock.recv(4096).startswith(b"READY=1"):
                pass
        finally:
            proc.send_signal(signal.SIGTERM)
            proc.wait(10)
            sock.close()
    text = err_path.read_text()
    lines = [x for x in text.splitlines() if x]
    assert lines and all(x[:3] in ("<3>", "<4>", "<6>", "<7>") for x in lines), text
    assert "ALSA lib" not in text
    assert any(x.startswith("<6>companion.service: ") for x in lines)
    assert any(x.startswith("<7>") for x in lines)                     # --log-level debug
    if "no sound" in text:                                              # no sound card here
        assert any(x.startswith("<4>companion.sound: no sound") for x in lines)


def test_version(capsys):
    with pytest.raises(SystemExit) as done:
        cli.main(["--version"])
    assert done.value.code == 0
    assert capsys.readouterr().out.strip() == f"coffee-companion {__version__}"
