"""The errors a command ends with, each carrying the exit code scripts rely on.

`kconnect_ctl.cli.main` prints an error's message as one line on stderr and exits with its code;
nothing else catches them, so a command body raises and never prints an error itself.
"""

from __future__ import annotations

#: The command did what it was asked.
EXIT_OK = 0
#: The cluster answered with a 4xx or 5xx status.
EXIT_REFUSED = 1
#: Bad usage (an unknown verb, a missing argument) or a bad input file.
EXIT_BAD_INPUT = 2
#: No answer from the cluster: connection refused, a timeout, a TLS handshake that failed.
EXIT_UNREACHABLE = 3


class CtlError(Exception):
    """A failed command: its message is the one line the user sees."""

    exit_code = EXIT_BAD_INPUT


class BadInput(CtlError):
    """Bad usage or a bad input file; the message names the file, line or key."""

    exit_code = EXIT_BAD_INPUT


class Refused(CtlError):
    """The cluster answered with an error status; the message is the server's ``message``."""

    exit_code = EXIT_REFUSED

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


class Unreachable(CtlError):
    """The cluster did not answer: ``cannot reach URL: reason``."""

    exit_code = EXIT_UNREACHABLE


def report(error: CtlError) -> None:
    """Print `error` as the one line on stderr every failure is shown as."""
    import sys

    print(f"error: {error}", file=sys.stderr)
