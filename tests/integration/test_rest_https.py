"""The REST API over HTTPS on real worker processes, with the session's throwaway CA (the ``ca`` fixture).

* a standalone worker with an https listener (the worker's own ``ssl.*`` PEM keys, no
  ``listeners.https.*``) and an http one answers ``/`` and ``/connectors`` on both; a client that
  does not trust the CA is refused;
* with ``listeners.https.ssl.client.auth=required`` a client without a certificate is refused and one
  with a certificate the CA signed is served;
* a key store that is not PEM stops the worker at start with one line naming the key;
* two distributed workers that only speak https with client certificates required: writes sent
  to the follower reach the leader (forwarding over mutual TLS) and the follower's connectors'
  task configs reach the leader too (the signed internal request), so every task runs.
"""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.integration.harness import lines
from tests.integration.test_distributed import group_props, read_lines, wait_healthy
from tests.throwaway_ca import KEY_PASSWORD, Certificate, CertificateAuthority, pem_stores
from tests.worker_process import WorkerProcess, free_port, stop_all, write_properties

pytestmark = pytest.mark.integration


@pytest.fixture
def standalone_props(tmp_path: Path, kafka_bootstrap: str) -> dict[str, str]:
    return {
        "bootstrap.servers": kafka_bootstrap,
        "offset.storage.file.filename": str(tmp_path / "connect.offsets"),
    }


def test_https_and_http_listeners_of_a_standalone_worker(
    tmp_path: Path, standalone_props: dict[str, str], ca: CertificateAuthority, server_cert: Certificate
) -> None:
    props = standalone_props | pem_stores(server_cert, ca)
    worker = WorkerProcess(tmp_path, props, tls=ca.client_context())
    http_port = free_port()
    write_properties(worker.worker_file, props | {"listeners": f"{worker.url},http://127.0.0.1:{http_port}"})
    worker.start()
    try:
        for url, verify in ((worker.url, ca.client_context()), (f"http://127.0.0.1:{http_port}", True)):
            root = httpx.get(f"{url}/", verify=verify, timeout=30)
            assert root.status_code == 200 and root.json()["version"]
            assert httpx.get(f"{url}/connectors", verify=verify, timeout=30).json() == []
        with pytest.raises(httpx.ConnectError, match="CERTIFICATE_VERIFY_FAILED"):
            httpx.get(f"{worker.url}/connectors", timeout=30)
    finally:
        assert worker.stop() == 0


def test_client_auth_required_serves_only_clients_with_a_certificate(
    tmp_path: Path,
    standalone_props: dict[str, str],
    ca: CertificateAuthority,
    server_cert: Certificate,
    client_cert: Certificate,
) -> None:
    props = standalone_props | pem_stores(server_cert, ca, "listeners.https.")
    props["listeners.https.ssl.client.auth"] = "required"
    worker = WorkerProcess(tmp_path, props, tls=ca.client_context(client_cert, password=KEY_PASSWORD)).start()
    try:
        assert worker.get("/").status_code == 200
        assert worker.get("/connectors").json() == []
        with pytest.raises(httpx.HTTPError):
            httpx.get(f"{worker.url}/connectors", verify=ca.client_context(), timeout=30)
    finally:
        assert worker.stop() == 0


def test_a_keystore_that_is_not_pem_stops_the_worker_with_one_line(
    tmp_path: Path, standalone_props: dict[str, str]
) -> None:
    port = free_port()
    props = {
        **standalone_props,
        "listeners": f"https://127.0.0.1:{port}",
        "listeners.https.ssl.keystore.type": "PKCS12",
        "listeners.https.ssl.keystore.location": str(tmp_path / "worker.p12"),
        "listeners.https.ssl.keystore.password": "changeit",
    }
    worker_file = write_properties(tmp_path / "w.properties", props)
    refused = subprocess.run(
        [sys.executable, "-m", "kconnect_rest.cli", "standalone", str(worker_file)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert refused.returncode == 2
    assert "Traceback" not in refused.stderr
    assert refused.stderr.strip().splitlines()[-1] == (
        f"kconnect: {worker_file}: listeners.https.ssl.keystore.type: PKCS12 is not supported: kconnect's "
        "REST listeners read PEM keystores only; set listeners.https.ssl.keystore.type=PEM and give the "
        "keystore as PEM"
    )


@pytest.fixture
def https_cluster(
    tmp_path: Path, kafka_bootstrap: str, ca: CertificateAuthority, server_cert: Certificate
) -> Iterator[list[WorkerProcess]]:
    """Two distributed workers that listen and advertise https only and require client certificates;
    each presents its own key store (the CA-signed worker certificate) when it calls the other."""
    props = group_props(
        kafka_bootstrap,
        "kconnect-https",
        **{"spark.master": "local[2]", "listeners.https.ssl.client.auth": "required"},
        **pem_stores(server_cert, ca, "listeners.https."),
    )
    context = ca.client_context(server_cert)
    workers = [WorkerProcess(tmp_path, props, mode="distributed", tls=context) for _ in range(2)]
    for worker in workers:
        worker.start()
    try:
        wait_healthy(workers)
        yield workers
    finally:
        stop_all(workers)


def test_distributed_workers_forward_and_hand_over_task_configs_over_mutual_tls(
    https_cluster: list[WorkerProcess], tmp_path: Path, unique_topic: str
) -> None:
    workers = https_cluster
    source_file = tmp_path / "in.txt"
    source_file.write_text(lines(0, 200), encoding="utf-8")
    sink = tmp_path / "out.txt"
    configs = {
        "src": {"connector.class": "FileStreamSource", "file": str(source_file), "topic": unique_topic},
        "sink": {"connector.class": "FileStreamSink", "file": str(sink), "topics": unique_topic},
    }
    for n, (name, config) in enumerate(configs.items()):
        through = workers[n % 2]  # one of the two is the follower: its write is forwarded
        for _ in range(120):
            created = through.request("PUT", f"/connectors/{name}/config", config)
            if created.status_code != 409:  # 409: a rebalance under way, retry as Kafka advises
                break
            time.sleep(0.5)
        assert created.status_code == 201, created.text

    def running(worker: WorkerProcess) -> bool:
        body = worker.get("/connectors?expand=status").json()
        tasks = [t for name in configs for t in body[name]["status"]["tasks"]]
        return len(tasks) == 2 and all(t["state"] == "RUNNING" for t in tasks)

    for worker in workers:
        worker.wait_for("every connector's task RUNNING", lambda w=worker: running(w), 120)
        assert sorted(worker.get("/connectors").json()) == ["sink", "src"]
    workers[0].wait_for("every line in the sink file", lambda: len(read_lines(sink)) >= 200, 120)
    assert read_lines(sink) == read_lines(source_file)
    body = workers[0].get("/connectors?expand=status").json()
    runners = {body[name]["status"]["connector"]["worker_id"] for name in configs}
    assert len(runners) == 2, f"both connectors on one worker: {runners}"  # so the follower ran one
    log = "".join(w.log_path.read_text(errors="replace") for w in workers)
    assert "IO Error trying to forward" not in log
    assert "could not hand the connector's task configs" not in log
