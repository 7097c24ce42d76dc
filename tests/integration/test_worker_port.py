"""The test worker's port choice is race-free: a port taken between its choice and the worker's bind
costs a retry on another port, not a failed test."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest
from kconnect_testkit.worker import KconnectWorker

from tests.worker_process import WorkerProcess

pytestmark = pytest.mark.integration


def _props(workdir: Path, kafka_bootstrap: str) -> dict[str, str]:
    return {
        "bootstrap.servers": kafka_bootstrap,
        "offset.storage.file.filename": str(workdir / "connect.offsets"),
    }


@pytest.mark.parametrize("kind", ["WorkerProcess", "KconnectWorker"])
def test_a_chosen_port_taken_before_the_worker_binds_it_moves_the_worker_to_another(
    tmp_path: Path, kafka_bootstrap: str, kind: str
) -> None:
    worker = (
        WorkerProcess(tmp_path, _props(tmp_path, kafka_bootstrap))
        if kind == "WorkerProcess"
        else KconnectWorker(tmp_path, kafka_bootstrap)
    )
    taken = worker.port
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as squatter:
        squatter.bind(("127.0.0.1", taken))
        squatter.listen()
        worker.start()
        try:
            assert worker.port != taken
            assert worker.url == f"http://127.0.0.1:{worker.port}"
            assert worker.get("/").status_code == 200
            assert f"127.0.0.1:{worker.port}" in worker.worker_file.read_text(encoding="utf-8")
        finally:
            worker.stop()


def test_a_port_the_caller_gave_is_kept_and_its_bind_failure_raised(
    tmp_path: Path, kafka_bootstrap: str
) -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as squatter:
        squatter.bind(("127.0.0.1", 0))
        squatter.listen()
        port = squatter.getsockname()[1]
        worker = WorkerProcess(tmp_path, _props(tmp_path, kafka_bootstrap), port=port)
        with pytest.raises(RuntimeError, match="Address already in use"):
            worker.start()
        assert worker.port == port
