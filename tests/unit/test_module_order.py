"""The slowest-first module order (`tests.module_order`) and its durations (scripts/test_durations.py)."""

from __future__ import annotations

import json

from tests.harness import REPO_ROOT, _load_script
from tests.module_order import DURATIONS, UNKNOWN_INTEGRATION_S, module_seconds

test_durations = _load_script("test_durations")

REPORT = """\
============================= slowest durations ==============================
161.46s call     plugins/storage/tests/integration/test_storage_exactly_once.py::test_sigkill[a]
10.50s setup    tests/integration/test_rest_misc.py::test_schemathesis
2.00s teardown tests/integration/test_rest_misc.py::test_schemathesis
0.40s call     tests/unit/kconnect/test_model.py::test_ids
(1200 durations < 0.005s hidden.  Use -vv to show these durations.)
FAILED tests/unit/kconnect/test_model.py::test_other - assert 1 == 2
"""


def test_a_report_sums_setup_call_and_teardown_per_module_slowest_first() -> None:
    assert list(test_durations.module_seconds(REPORT).items()) == [
        ("plugins/storage/tests/integration/test_storage_exactly_once.py", 161.5),
        ("tests/integration/test_rest_misc.py", 12.5),
        ("tests/unit/kconnect/test_model.py", 0.4),
    ]


def test_a_module_without_a_record_counts_as_an_integration_module_or_as_nothing() -> None:
    recorded = {"tests/integration/test_a.py": 100.0}
    assert module_seconds("tests/integration/test_a.py", recorded) == 100.0
    assert module_seconds("plugins/x/tests/integration/test_new.py", recorded) == UNKNOWN_INTEGRATION_S
    assert module_seconds("tests/unit/test_new.py", recorded) == 0.0


def test_the_recorded_durations_name_modules_that_exist() -> None:
    recorded = json.loads(DURATIONS.read_text())
    assert recorded
    missing = [path for path in recorded if not (REPO_ROOT / path).is_file()]
    assert len(missing) <= len(recorded) // 10, f"rerun scripts/test_durations.py: {missing}"
