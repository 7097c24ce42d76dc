"""The leader's assignor counted in instructions: each round of `assignor.py`'s events, alone.

Wall time on a shared machine moves with the load; instructions do not. This replays one cluster
of `assignor.py` (the group forming, a join, a leave, the delay's end, a return, a new empty
worker) under valgrind's callgrind, collecting only inside each ``assign`` call (run through
``exec``, the function callgrind toggles on) and the young collection it leaves, one dump per
round, and prints each round's count.

    python assignor_instructions.py                          # 200 workers, 110,000, current
    python assignor_instructions.py --against dee953a        # the assignor of that commit
    python assignor_instructions.py --decoded --workers 50   # members report freshly decoded ids

``--decoded``: before each round every member's work goes through the Connect protocol's encoding
and decoding, as a real leader receives it (outside the count), so that no id the assignor compares
is the very object it handed out. Needs valgrind.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import assignor as bench
from kconnect.distributed import protocol

HERE = Path(__file__).resolve().parent
NOT_AN_EVENT = "(a second worker leaves)"
ROUND = compile("result = assign(**kwargs)", "<round>", "exec")


def _decoded(work: protocol.ConnectorsAndTasks) -> protocol.ConnectorsAndTasks:
    """`work` as a member's metadata brings it to the leader."""
    encoded = protocol.encode_assignment(protocol.Assignment(1, 0, "", "", 0, work))
    return protocol.decode_assignment(encoded).assigned


class _DecodedGroup(bench.Group):
    """A group whose members report their work freshly decoded before every round."""

    def round(self, figures: dict[str, bench.Timed]) -> bool:
        """One rebalance, the members' work decoded first."""
        self.running = {m: _decoded(work) for m, work in self.running.items()}
        return super().round(figures)


def child(workers: int, connectors: int, against: str | None, decoded: bool) -> None:
    """Replay the events, each assign call inside exec; print the rounds' labels as JSON."""
    answers: dict[str, bench.Answers] = {}
    if against:
        assign, answers["counted"] = bench.reference_assignor(against)
    else:
        assign = bench.current_assignor.assign
    calls = 0

    def counted(**kwargs: Any) -> bench.RoundResult:
        nonlocal calls
        calls += 1
        names: dict[str, Any] = {"assign": assign, "kwargs": kwargs}
        exec(ROUND, names)
        result: bench.RoundResult = names["result"]
        return result

    group_type = _DecodedGroup if decoded else bench.Group
    events = bench.run_cluster(workers, connectors, 10, {"counted": counted}, 1, answers, group_type)
    labels: list[str] = []
    for event in bench.EVENTS:
        if event == "new empty worker":
            labels.append(NOT_AN_EVENT)
        labels += [event] * events[event]["counted"]["rounds"]
    if len(labels) != calls:
        raise RuntimeError(f"{calls} rounds, {len(labels)} labelled")
    print(json.dumps(labels))


def main() -> int:
    """Run the child under callgrind and print each round's instructions."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--workers", type=int, default=200)
    parser.add_argument("--connectors", type=int, default=10_000, help="of 10 tasks each")
    parser.add_argument("--against", metavar="REV", help="count the assignor of this git revision")
    parser.add_argument("--decoded", action="store_true", help="members report freshly decoded ids")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.workers, args.connectors, args.against, args.decoded)
        return 0
    out = Path(tempfile.mkdtemp(prefix="assignor-callgrind-")) / "callgrind.out"
    command = [
        *("valgrind", "--tool=callgrind", "--collect-atstart=no", "--toggle-collect=builtin_exec"),
        *("--dump-after=builtin_exec", f"--callgrind-out-file={out}", sys.executable, __file__, "--child"),
        *("--workers", str(args.workers), "--connectors", str(args.connectors)),
        *(("--against", args.against) if args.against else ()),
        *(("--decoded",) if args.decoded else ()),
    ]
    run = subprocess.run(command, capture_output=True, text=True, check=True, cwd=HERE)
    labels: list[str] = json.loads(run.stdout.strip().splitlines()[-1])
    dumps = sorted(out.parent.glob(f"{out.name}.*"), key=lambda p: int(p.suffix[1:]))
    # Other exec calls (dataclasses build their methods with it) come first: the rounds are the last.
    counts = [_instructions(dump) for dump in dumps[-len(labels) :]]
    name = args.against or bench.measured_commit()
    print(f"{args.workers} workers, {args.connectors * 11:,} connectors and tasks, {name}", end="")
    print(", decoded ids" if args.decoded else "")
    for label, count in zip(labels, counts, strict=True):
        print(f"{label:32} {count / 1e9:6.3f} billion instructions")
    return 0


def _instructions(dump: Path) -> int:
    """The instructions a callgrind dump counted."""
    for line in dump.read_text().splitlines():
        if line.startswith("summary:"):
            return int(line.split()[1])
    raise RuntimeError(f"{dump}: no summary")


if __name__ == "__main__":
    sys.exit(main())
