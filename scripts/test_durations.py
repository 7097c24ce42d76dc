"""Write tests/module_seconds.json from a test run's ``--durations=0`` report.

Run the suite once with every duration reported and keep its output, then:

    tox -e tests -- -q --durations=0 > /tmp/run.log
    python scripts/test_durations.py /tmp/run.log

Each module's seconds are the sum of its tests' setup, call and teardown times (phases under 5 ms,
which pytest leaves out of the report, count as nothing). `tests/module_order.py` reads the file to
start the slowest modules first.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUTPUT = ROOT / "tests" / "module_seconds.json"
_LINE = re.compile(r"^\s*(?P<seconds>\d+(?:\.\d+)?)s (?:setup|call|teardown)\s+(?P<module>[^:\s]+\.py)::")


def module_seconds(report: str) -> dict[str, float]:
    """Seconds per module path in a ``--durations=0`` report, slowest first, rounded to 0.1 s."""
    seconds: dict[str, float] = defaultdict(float)
    for line in report.splitlines():
        match = _LINE.match(line)
        if match:
            seconds[match["module"]] += float(match["seconds"])
    return {m: round(s, 1) for m, s in sorted(seconds.items(), key=lambda item: (-item[1], item[0]))}


def main(argv: list[str] | None = None) -> int:
    """Read the report named on the command line, write `OUTPUT`; 1 when the report has no durations."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("report", type=Path, help="a pytest run's output with --durations=0")
    args = parser.parse_args(argv)
    seconds = module_seconds(args.report.read_text(errors="replace"))
    if not seconds:
        print(f"{args.report}: no test durations (was it run with --durations=0?)", file=sys.stderr)
        return 1
    OUTPUT.write_text(json.dumps(seconds, indent=1) + "\n")
    print(f"{len(seconds)} modules, {sum(seconds.values()):.0f} s in all: {OUTPUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
