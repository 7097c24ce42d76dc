"""Runs kconnectctl for the integration tests, as a script would, and captures what it prints."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from collections.abc import Callable
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kconnect_ctl.cli import main
from kconnect_ctl.contexts import CONFIG_ENV
from kconnect_testkit.worker import wait_until


@dataclass
class Ctl:
    """Runs ``kconnectctl`` with `config_file` as its context file.

    A command runs in this process (``main`` with its output captured): a process per command
    costs a second of imports on a loaded machine. With ``process=True`` it runs the installed
    ``kconnectctl`` in a process of its own, for the exit codes and stderr a script sees."""

    config_file: Path

    def __call__(
        self, *args: str, expect: int | None = 0, process: bool = False
    ) -> subprocess.CompletedProcess[str]:
        """Run one command (in a process of its own with `process`); assert its exit code (unless
        `expect` is None) and that a failure wrote one line to stderr, never a traceback."""
        done = self._process(args) if process else self._here(args)
        assert "Traceback" not in done.stderr, done.stderr
        assert len(done.stderr.splitlines()) <= 1, done.stderr
        if expect is not None:
            assert done.returncode == expect, (args, done.returncode, done.stdout, done.stderr)
        return done

    def _process(self, args: tuple[str, ...]) -> subprocess.CompletedProcess[str]:
        command = [str(Path(sys.executable).with_name("kconnectctl")), *args]
        environ = {**os.environ, CONFIG_ENV: str(self.config_file)}
        return subprocess.run(command, capture_output=True, text=True, timeout=120, env=environ)

    def _here(self, args: tuple[str, ...]) -> subprocess.CompletedProcess[str]:
        out, err = io.StringIO(), io.StringIO()
        previous = os.environ.get(CONFIG_ENV)
        os.environ[CONFIG_ENV] = str(self.config_file)
        try:
            with redirect_stdout(out), redirect_stderr(err):
                try:
                    code = main(list(args))
                except SystemExit as exit:  # argparse's usage errors
                    code = int(exit.code or 0)
        finally:
            if previous is None:
                del os.environ[CONFIG_ENV]
            else:
                os.environ[CONFIG_ENV] = previous
        return subprocess.CompletedProcess(list(args), code, out.getvalue(), err.getvalue())

    def json(self, *args: str) -> Any:
        """A command's ``-o json`` output, parsed."""
        return json.loads(self(*args, "-o", "json").stdout)

    def wait_for(self, what: str, check: Callable[[], bool], timeout: float = 90.0) -> None:
        """Poll `check` (commands of this `Ctl`, usually) until it holds; fail naming `what`."""
        wait_until(what, check, timeout, not_yet=(KeyError, IndexError, AssertionError, ValueError))
