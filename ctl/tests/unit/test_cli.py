"""``main``'s exit codes for what is wrong before any request: usage, the context file, the URL, the
timeout; and an unreachable cluster (a closed local port)."""

from __future__ import annotations

from pathlib import Path

import pytest
from kconnect_ctl.cli import main
from kconnect_ctl.contexts import CONFIG_ENV

from tests.worker_process import free_port


def run(argv: list[str]) -> int:
    """`main`'s exit code, argparse's usage errors (a SystemExit) included."""
    try:
        return main(argv)
    except SystemExit as exit:
        return int(exit.code or 0)


@pytest.fixture(autouse=True)
def context_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "ctl.yaml"
    monkeypatch.setenv(CONFIG_ENV, str(path))
    return path


@pytest.mark.parametrize(
    ("argv", "code", "stderr"),
    [
        (["get"], 2, "error: kconnectctl get: the following arguments are required: RESOURCE"),
        (
            ["get", "connectors", "-o", "xml"],
            2,
            "error: kconnectctl get connectors: argument -o/--output: invalid",
        ),
        (
            ["--cluster", "localhost:8083", "get", "plugins"],
            2,
            "error: cluster URL 'localhost:8083' must start",
        ),
        (["get", "plugins", "--request-timeout", "0"], 2, "error: --request-timeout 0: must be more than 0"),
        (["--context", "x", "get", "plugins"], 2, "error: {file}: no context named 'x'"),
        (
            ["restart", "task", "no-id", "--cluster", "http://127.0.0.1:1"],
            2,
            "error: task 'no-id': expected CONNECTOR/TASK_ID",
        ),
    ],
)
def test_bad_usage_is_exit_2_with_one_line(
    argv: list[str], code: int, stderr: str, context_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(argv) == code
    err = capsys.readouterr().err
    assert err.startswith(stderr.format(file=context_file)) and err.count("\n") == 1, err


def test_a_bad_context_file_is_exit_2_naming_it(
    context_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    context_file.write_text("contexts:\n  a:\n    cluster: a: b\n")
    assert main(["get", "plugins"]) == 2
    assert capsys.readouterr().err == f"error: {context_file}: line 3: mapping values are not allowed here\n"


def test_a_closed_port_is_exit_3(capsys: pytest.CaptureFixture[str]) -> None:
    url = f"http://127.0.0.1:{free_port()}"
    assert main(["--cluster", url, "delete", "connector", "a", "b"]) == 3
    assert capsys.readouterr() == ("", f"error: cannot reach {url}: connection refused\n")
