"""Run ``coffee-companion`` in this process (so coverage follows replay and history).

``cli("replay", "-", "--json", stdin=b"...")`` gives ``(returncode, stdout, stderr)``
like a subprocess would, standard input as bytes, output as text.
"""
from __future__ import annotations

import contextlib
import io
import os
import sys
from dataclasses import dataclass

from companion.commands import cli as companion_cli


@dataclass
class Result:
    returncode: int
    stdout: str
    stderr: str


def cli(*args: str, stdin: bytes = b"") -> Result:
    out, err = io.StringIO(), io.StringIO()
    saved_stdin, saved_env = sys.stdin, os.environ.pop("COFFEE_COMPANION_CONFIG", None)
    sys.stdin = io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8")
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = companion_cli.main(list(args))
    finally:
        sys.stdin = saved_stdin
        if saved_env is not None:
            os.environ["COFFEE_COMPANION_CONFIG"] = saved_env
    return Result(code, out.getvalue(), err.getvalue())
