"""The service's log under systemd: journald priorities, words, no ALSA chatter; --version."""
import logging
import os
import signal
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from companion import __version__
from companion.commands import cli
from companion.appliance import logs
from service_helpers import table_config
from timing import scaled

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


def test_a_python_warning_reaches_the_journal_as_a_warning(tmp_path):
    """A library's Python warning (Debian 13's pygame on x86 warns at import that it was
    built without AVX2) is a line of the log at the warning priority, not a bare line."""
    err_path = tmp_path / "stderr"
    code = ("import warnings; from companion.appliance import logs; logs.setup('debug'); "
            "warnings.warn('Your system is avx2 capable', RuntimeWarning)")
    with open(err_path, "w") as err:
        st = os.fstat(err.fileno())
        env = dict(os.environ, JOURNAL_STREAM=f"{st.st_dev}:{st.st_ino}")
        subprocess.run([sys.executable, "-c", code], env=env, stderr=err, check=True,
                       cwd=ROOT, timeout=scaled(30))
    lines = err_path.read_text().splitlines()
    assert lines and all(x.startswith("<4>py.warnings: ") for x in lines), lines
    assert "RuntimeWarning: Your system is avx2 capable" in lines[0]


def test_the_service_logs_with_priorities_and_without_alsa_chatter(tmp_path):
    cfg = table_config(tmp_path, sound=True)
    notify = tmp_path / "notify"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(str(notify))
    sock.settimeout(scaled(20))
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
            proc.wait(scaled(10))
            sock.close()
    text = err_path.read_text()
    lines = [x for x in text.splitlines() if x]
    assert lines and all(x[:3] in ("<3>", "<4>", "<6>", "<7>") for x in lines), text
    assert "ALSA lib" not in text
    assert any(x.startswith("<6>companion.appliance.service: ") for x in lines)
    assert any(x.startswith("<7>") for x in lines)                     # --log-level debug
    if "no sound" in text:                                              # no sound card here
        assert any(x.startswith("<4>companion.outputs.sound: no sound") for x in lines)


def test_version(capsys):
    with pytest.raises(SystemExit) as done:
        cli.main(["--version"])
    assert done.value.code == 0
    assert capsys.readouterr().out.strip() == f"coffee-companion {__version__}"


def test_a_c_librarys_repeated_line_is_logged_once_a_minute_with_its_count():
    said: list[str] = []
    now = [0.0]
    lines = logs.NativeLines(said.append, clock=lambda: now[0], every=60)
    for i in range(500):                   # libasound under a slow CPU, many times a second
        now[0] = i * 0.1
        lines.line(f"ALSA lib pcm.c:{8500 + i % 3}:(snd_pcm_recover) underrun occurred\n")
    lines.line("MESA: warning: something else\n")
    assert said == ["ALSA lib pcm.c:8500:(snd_pcm_recover) underrun occurred",
                    "MESA: warning: something else"]
    now[0] = 61.0
    lines.flush_due()                      # the minute is over: the count, then afresh
    assert said[2:] == ["ALSA lib pcm.c:8500:(snd_pcm_recover) underrun occurred "
                        "(and 499 more times in 60 s)"]
    lines.line("ALSA lib pcm.c:8501:(snd_pcm_recover) underrun occurred")
    assert said[3:] == ["ALSA lib pcm.c:8501:(snd_pcm_recover) underrun occurred"]


def test_under_journald_what_c_code_writes_to_fd_2_reaches_the_log_collapsed(tmp_path):
    err_path = tmp_path / "stderr"
    script = (
        "import os, sys, time\n"
        "from companion.appliance import logs\n"
        "t = logs.native_stderr_to_log(logs.setup('info'))\n"
        "for _ in range(200):\n"
        "    os.write(2, b'ALSA lib pcm.c:8545:(snd_pcm_recover) underrun occurred\\n')\n"
        "os.write(2, b'done\\n')\n"
        "print('python words', file=sys.stderr)\n"
        f"deadline = time.monotonic() + {scaled(10)}\n"
        "while 'done' not in open(sys.argv[1]).read() and time.monotonic() < deadline:\n"
        "    time.sleep(0.05)\n")
    with open(err_path, "w") as err:
        st = os.fstat(err.fileno())
        env = dict(os.environ, JOURNAL_STREAM=f"{st.st_dev}:{st.st_ino}")
        subprocess.run([sys.executable, "-c", script, str(err_path)], env=env, stderr=err,
                       timeout=scaled(30), check=True, cwd=ROOT)
    lines = err_path.read_text().splitlines()
    assert lines.count("<4>ALSA lib pcm.c:8545:(snd_pcm_recover) underrun occurred") == 1
    assert "<4>done" in lines and "python words" in lines


def test_the_log_never_waits_for_a_stalled_journald():
    gate, drained = threading.Event(), threading.Event()

    class Stalled(logging.Handler):            # journald not reading: every write waits
        def __init__(self):
            super().__init__()
            self.lines: list[str] = []

        def emit(self, record):
            gate.wait(scaled(10))
            self.lines.append(record.getMessage())
            if listener.lines.empty():
                drained.set()
    root = logging.getLogger()
    saved = root.handlers[:], root.level
    slow = Stalled()
    root.handlers[:] = [slow]
    root.setLevel(logging.INFO)
    listener = logs.behind_a_queue(slow, lines=5)
    try:
        for i in range(20):                    # returns at once though nothing is written
            logging.getLogger("companion.core.loop").info("line %d", i)
        gate.set()
        assert drained.wait(scaled(10))                # written out now that journald reads again
        logging.getLogger("companion.core.loop").info("after")
    finally:
        listener.stop()
        root.handlers[:], _ = saved[0], root.setLevel(saved[1])
    assert slow.lines[0] == "line 0" and slow.lines[-1] == "after"
    assert any(x.endswith("log lines were dropped: the system log was not reading")
               for x in slow.lines)
