"""``python -m kconnect_basic_auth add-user FILE USER``: add or replace a user in a credentials file.

The password is asked for twice on a terminal, or read from the first line of stdin with
``--password-stdin`` (for scripts).
"""

from __future__ import annotations

import argparse
import getpass
import sys

from kconnect_basic_auth.credentials import CredentialsFileError, add_user


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    parser = argparse.ArgumentParser(prog="python -m kconnect_basic_auth")
    commands = parser.add_subparsers(dest="command", required=True)
    add = commands.add_parser("add-user", help="add or replace a user in a credentials file")
    add.add_argument("file")
    add.add_argument("user")
    add.add_argument("--password-stdin", action="store_true", help="read the password from stdin")
    args = parser.parse_args(argv)
    if args.password_stdin:
        password = sys.stdin.readline().rstrip("\n")
    else:
        password = getpass.getpass(f"Password for {args.user}: ")
        if getpass.getpass("Again: ") != password:
            print("Passwords do not match", file=sys.stderr)
            return 1
    if not password:
        print("Empty password refused", file=sys.stderr)
        return 1
    try:
        add_user(args.file, args.user, password)
    except (CredentialsFileError, OSError) as exc:
        print(exc, file=sys.stderr)
        return 1
    print(f"{args.user} added to {args.file}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
