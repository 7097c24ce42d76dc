"""``python -m kconnect_ctl``: the same as the ``kconnectctl`` command."""

from kconnect_ctl.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
