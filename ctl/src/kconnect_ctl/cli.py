"""``kconnectctl``'s entry point: parse, find the cluster, run the command, turn errors into exit codes.

Every failure ends here as one line on stderr and the exit code of its `CtlError`; usage errors
exit 2 from the parser. A traceback is a bug.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from kconnect_ctl import contexts
from kconnect_ctl.client import DEFAULT_TIMEOUT_S, ConnectClient
from kconnect_ctl.completion import completion
from kconnect_ctl.errors import EXIT_BAD_INPUT, CtlError, report
from kconnect_ctl.parser import build_parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; its exit code (0 done, 1 refused, 2 bad usage or input, 3 unreachable)."""
    parser = build_parser(completion)
    args = parser.parse_args(argv)
    try:
        if args.kind == "completion":
            return int(args.run(parser, args))
        path = contexts.config_path()
        if args.kind == "config":
            return int(args.run(path, args))
        file = contexts.load(path)
        context = contexts.resolve(file, getattr(args, "context", None), getattr(args, "cluster", None), path)
        timeout = getattr(args, "request_timeout", DEFAULT_TIMEOUT_S)
        if timeout <= 0:
            raise CtlError(f"--request-timeout {timeout:g}: must be more than 0 seconds")
        client = ConnectClient(context, timeout)
        try:
            return int(args.run(client, args))
        finally:
            client.close()
    except CtlError as error:
        report(error)
        return error.exit_code
    except BrokenPipeError:
        # `kconnectctl get connectors | head`: the reader left; nothing more to say.
        sys.stderr.close()
        return EXIT_BAD_INPUT


if __name__ == "__main__":
    raise SystemExit(main())
