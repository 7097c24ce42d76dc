"""``python -m kconnect_ctl``: the same as the ``kconnectctl`` command."""

from kconnect_ctl.cli import main

raise SystemExit(main())
