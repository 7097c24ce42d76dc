"""``kconnect test``: a connector config's converters, transformations and predicates over sample records.

Every folder of ``config_tests/`` is one case as a user keeps it in a repository (docs/config-tests.md):
``connector.properties``, ``records.jsonl`` and ``expected.jsonl``; each must pass (exit 0). The
``oracle-*`` folders are cases of the Java oracle (``tests/java_oracle/cases.json``) whose expected
lines are what Kafka 4.3.1's own transformations gave (``plugins/transforms/tests/unit/java_expected.json``),
checked here to be exactly those, so the same inputs give the same outputs through the whole
pipeline: sink records as JsonConverter bytes through the converters then the transformation, source
records through the transformation then the converters. The plugins are the real installed ones;
no broker is needed, which is the point of the command.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from kconnect_rest.cli import main

REPO = Path(__file__).resolve().parents[3]
CASES_DIR = Path(__file__).parent / "config_tests"
ORACLE_CASES = json.loads((REPO / "tests/java_oracle/cases.json").read_text(encoding="utf-8"))
JAVA = json.loads((REPO / "plugins/transforms/tests/unit/java_expected.json").read_text(encoding="utf-8"))
JSON_CONVERTER = "org.apache.kafka.connect.json.JsonConverter"

#: Oracle cases run through `kconnect test` (none of them compares a Java object's toString or a float32).
ORACLE = (
    "insertfield-value-all",
    "cast-value-fields",
    "regexrouter-groups",
    "timestamprouter-format",
    "hoistfield-value",
    "flatten-value",
    "maskfield-value-replacement",
    "valuetokey",
    "extractfield-value-name",
    "headerfrom-value-move",
    "insertheader-string",
    "tsconv-field-when-string",
    "setschemametadata-value",
    "replacefield-value-include",
    "dropheaders",
    "filter",
)


def _oracle_case(case_id: str) -> dict[str, Any]:
    return next(case for case in ORACLE_CASES["transforms"] if case["id"] == case_id)


def _of_kind(case_id: str, kind: str) -> list[tuple[dict[str, Any], Any]]:
    """The case's records of one kind, each with what Java's transformation gave for it."""
    case = _oracle_case(case_id)
    outputs = JAVA["transforms"][case_id]["outputs"]
    specs = [ORACLE_CASES["records"][name] for name in case["records"]]
    return [(spec, out) for spec, out in zip(specs, outputs, strict=True) if spec.get("kind", "sink") == kind]


def _as_bytes(envelope: Any) -> Any:
    return None if envelope is None else {"json": envelope}


def oracle_config(case_id: str, kind: str) -> dict[str, str]:
    """A connector config running the case's transformation, with JsonConverter (schemas) everywhere."""
    case = _oracle_case(case_id)
    connector = (
        {"connector.class": "FileStreamSink", "topics": "orders"}
        if kind == "sink"
        else {"connector.class": "FileStreamSource", "topic": "orders"}
    )
    return {
        "name": f"oracle-{case_id}-{kind}",
        **connector,
        "file": "/dev/null",
        "key.converter": JSON_CONVERTER,
        "value.converter": JSON_CONVERTER,
        "header.converter": JSON_CONVERTER,
        "errors.tolerance": "all",
        "transforms": "t",
        "transforms.t.type": case["type"],
        **{f"transforms.t.{key}": value for key, value in case["config"].items()},
    }


def oracle_records(case_id: str, kind: str) -> list[dict[str, Any]]:
    """The case's records of `kind`: a sink's as the JsonConverter bytes of their envelopes, a
    source's as the Connect data the envelopes stand for."""
    wrap = _as_bytes if kind == "sink" else (lambda envelope: envelope)
    lines = []
    for spec, _ in _of_kind(case_id, kind):
        line = {
            "topic": spec["topic"],
            "partition": spec.get("partition"),
            "timestamp": spec.get("timestamp"),
            "key": wrap(spec.get("key")),
            "value": wrap(spec.get("value")),
            "headers": [[name, wrap(envelope)] for name, envelope in spec.get("headers", [])],
        }
        if kind == "sink":
            line["offset"] = spec.get("offset", 0)
        lines.append(line)
    return lines


def oracle_expected(case_id: str, kind: str) -> list[Any]:
    """What Java gave, as `kconnect test` lines: a source's record as the converters' JSON bytes,
    an error (every oracle error is the transformation's) with its stage."""
    lines: list[Any] = []
    for _, out in _of_kind(case_id, kind):
        if out is None:
            lines.append(None)
        elif "error" in out:
            lines.append({**out, "stage": "TRANSFORMATION"})
        elif kind == "sink":
            lines.append(out)
        else:
            headers = [[name, _as_bytes(envelope)] for name, envelope in out["headers"]]
            lines.append(
                {**out, "key": _as_bytes(out["key"]), "value": _as_bytes(out["value"]), "headers": headers}
            )
    return lines


def _read_lines(path: Path) -> list[Any]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _run(capsys: pytest.CaptureFixture[str], *args: str | Path) -> tuple[int, str, str]:
    status = main(["test", *map(str, args)])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


CASE_FOLDERS = sorted(path.name for path in CASES_DIR.iterdir() if path.is_dir())


@pytest.mark.parametrize("folder", CASE_FOLDERS)
def test_each_checked_in_case_passes(capsys: pytest.CaptureFixture[str], folder: str) -> None:
    case = CASES_DIR / folder
    status, out, err = _run(
        capsys,
        case / "connector.properties",
        "--records",
        case / "records.jsonl",
        "--expect",
        case / "expected.jsonl",
    )
    count = len(_read_lines(case / "expected.jsonl"))
    lines = f"{count} line{'s' if count != 1 else ''}"
    assert (status, out) == (0, f"{case / 'expected.jsonl'}: {lines} as expected\n"), out + err


@pytest.mark.parametrize(
    ("case_id", "kind"),
    [(case_id, kind) for case_id in ORACLE for kind in ("sink", "source") if _of_kind(case_id, kind)],
)
def test_oracle_cases_are_the_java_oracles_inputs_and_outputs(case_id: str, kind: str) -> None:
    import javaproperties

    case = CASES_DIR / f"oracle-{case_id}-{kind}"
    config = javaproperties.loads((case / "connector.properties").read_text(encoding="utf-8"))
    assert config == oracle_config(case_id, kind)
    assert _read_lines(case / "records.jsonl") == oracle_records(case_id, kind)
    assert _read_lines(case / "expected.jsonl") == oracle_expected(case_id, kind)


def test_without_expect_it_prints_one_line_per_record(capsys: pytest.CaptureFixture[str]) -> None:
    case = CASES_DIR / "source-bytes-and-predicates"
    status, out, _ = _run(capsys, case / "connector.properties", "--records", case / "records.jsonl")
    assert status == 0
    assert [json.loads(line) for line in out.splitlines()] == _read_lines(case / "expected.jsonl")


def test_a_mismatch_prints_a_diff_and_each_difference_and_exits_1(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    case = CASES_DIR / "source-bytes-and-predicates"
    expected = _read_lines(case / "expected.jsonl")
    expected[0]["value"] = "something else"
    expected[0]["partition"] = 7
    wrong = tmp_path / "wrong.jsonl"
    wrong.write_text("".join(json.dumps(line) + "\n" for line in expected[:-1]), encoding="utf-8")
    status, out, _ = _run(
        capsys, case / "connector.properties", "--records", case / "records.jsonl", "--expect", wrong
    )
    assert status == 1
    lines = out.splitlines()
    assert lines[:2] == [f"--- {wrong} (expected)", "+++ actual"]
    assert any(line.startswith("-{") and '"something else"' in line for line in lines)
    assert any(line.startswith("+{") and '"something else"' not in line for line in lines)
    assert "line 1: partition: expected 7, got null" in lines
    assert any(line.startswith('line 1: value: expected "something else", got ') for line in lines)
    assert f"line {len(expected)}: an extra line" in lines
    assert lines[-1] == f"{wrong}: 2 of {len(expected)} lines differ"


def test_a_failing_record_fails_the_task_under_tolerance_none_and_is_skipped_under_all(
    capsys: pytest.CaptureFixture[str],
) -> None:
    none, tolerated = CASES_DIR / "tolerance-none", CASES_DIR / "tolerance-all"
    assert (none / "records.jsonl").read_text() == (tolerated / "records.jsonl").read_text()
    failed, out, _ = _run(capsys, none / "connector.properties", "--records", none / "records.jsonl")
    assert failed == 1
    *before, last = [json.loads(line) for line in out.splitlines()]
    assert last["failed"] == "Tolerance exceeded in error handler"
    assert last["stage"] == "VALUE_CONVERTER"
    assert len(before) == 1  # the run ends at the failing record, as the task does

    skipped, out, _ = _run(
        capsys, tolerated / "connector.properties", "--records", tolerated / "records.jsonl"
    )
    assert skipped == 0
    lines = [json.loads(line) for line in out.splitlines()]
    assert len(lines) == 3
    assert lines[1] == {key: value for key, value in last.items() if key != "failed"}
    assert lines[0] == before[0]


def test_bad_input_is_one_line_and_exit_2(tmp_path: Path) -> None:
    case = CASES_DIR / "tolerance-all"
    records = tmp_path / "records.jsonl"
    records.write_text('{"topic": "orders", "value": {"json": 1, "base64": "x"}}\n', encoding="utf-8")
    bad_type = tmp_path / "bad-transform.properties"
    bad_type.write_text(
        (case / "connector.properties").read_text() + "transforms=x\ntransforms.x.type=com.example.Nope\n"
    )
    for connector, records_file, message in (
        (case / "connector.properties", records, f"{records}:1: value: expected null, a string"),
        (bad_type, case / "records.jsonl", "transforms.x.type: "),
        (
            case / "connector.properties",
            tmp_path / "absent.jsonl",
            f"{tmp_path / 'absent.jsonl'}: cannot read",
        ),
    ):
        result = subprocess.run(
            [
                sys.executable,
                "-m",
                "kconnect_rest.cli",
                "test",
                str(connector),
                "--records",
                str(records_file),
            ],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert result.returncode == 2, result.stderr
        assert result.stdout == ""
        assert len(result.stderr.splitlines()) == 1, result.stderr
        assert result.stderr.startswith(f"kconnect test: {message}"), result.stderr


def test_kind_comes_from_the_connector_unless_given(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    case = CASES_DIR / "tolerance-all"
    connector = tmp_path / "elsewhere.properties"
    connector.write_text(
        (case / "connector.properties").read_text().replace("FileStreamSink", "com.example.NotInstalledSink")
    )
    status, out, err = _run(capsys, connector, "--records", case / "records.jsonl")
    assert (status, out) == (2, "")
    assert err == (
        f"kconnect test: {connector}: connector.class: names no installed connector; "
        "say --kind source or --kind sink\n"
    )
    status, out, _ = _run(
        capsys,
        connector,
        "--kind",
        "sink",
        "--records",
        case / "records.jsonl",
        "--expect",
        case / "expected.jsonl",
    )
    assert (status, out) == (0, f"{case / 'expected.jsonl'}: 3 lines as expected\n")
