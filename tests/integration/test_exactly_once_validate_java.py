"""Validate and create answer a source connector's exactly-once keys (KIP-618) as Java Kafka Connect 4.3.1.

For each worker ``exactly.once.source.support`` (disabled, preparing, enabled) one Java 4.3.1
``ConnectDistributed`` worker and one ``kconnect distributed`` worker, each in a group of its own on
the test broker, answer the same calls, compared call by call; then a Java ``ConnectStandalone`` and
a ``kconnect standalone`` worker answer them too (standalone mode reads no exactly-once key):

* ``PUT /connector-plugins/{plugin}/config/validate`` for every combination of ``exactly.once.support``
  (unset, requested, required, invalid) x the connector's ``exactly_once_support()`` answer
  (SUPPORTED, UNSUPPORTED, None) x ``transaction.boundary`` (poll, interval, connector, invalid) x
  its ``can_define_transaction_boundaries()`` answer (SUPPORTED, UNSUPPORTED), then the edges: a
  connector method that raises or answers None, ``transaction.boundary.interval.ms`` with each
  boundary, ``offsets.storage.topic``, values in other cases and with spaces; and Kafka's
  FileStreamSource, whose own answer (a file: SUPPORTED; stdin: UNSUPPORTED) kconnect's port gives.
  Compared: the error count, every key's errors and every key's value;
* ``POST /connectors`` (``initial_state`` STOPPED, so no task runs) for a set of those configs:
  the status code, and the error message or the created connector's name, config and type.

A last test runs two workers of each kind in one group during an upgrade (leader ``enabled``, follower
``preparing``): a create through the follower is validated there first, as Kafka's.

The test connector is ``tests/java_oracle/ExactlyOnceAnswers.java`` on the Java side and
``tests.connectors.ExactlyOnceAnswers`` on ours: both answer from the config's ``answer.*`` keys.
The differences expected, each documented: kconnect's bundled plugins carry their own versions,
and create's 400 message names the connector's validate endpoint where
Kafka prints a literal ``{connectorType}`` (docs/rest.md).
"""

from __future__ import annotations

import itertools
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from tests.connectors import ANSWER_EXACTLY_ONCE, ANSWER_TRANSACTION_BOUNDARIES
from tests.java_connect import JAVA_ORACLE, JavaConnectWorker, compile_java
from tests.plugin_package import install_connectors, plugin_env
from tests.worker_process import WorkerProcess

pytestmark = pytest.mark.integration

PLUGIN = "kconnect.test.ExactlyOnceAnswers"
FILE_SOURCE = "org.apache.kafka.connect.file.FileStreamSourceConnector"
#: The parameter that runs both workers in standalone mode, which checks none of the keys (as Kafka's).
STANDALONE = "standalone"
EOS, BOUNDARY, INTERVAL, OFFSETS = (
    "exactly.once.support",
    "transaction.boundary",
    "transaction.boundary.interval.ms",
    "offsets.storage.topic",
)
NO_EXACTLY_ONCE_TEXT = "This worker does not have exactly-once source support enabled."


#: The short names rows are written with, and the keys they stand for.
KEYS = {
    "eos": EOS,
    "eos_answer": ANSWER_EXACTLY_ONCE,
    "boundary": BOUNDARY,
    "boundaries_answer": ANSWER_TRANSACTION_BOUNDARIES,
    "interval": INTERVAL,
    "offsets": OFFSETS,
}


def _row(**keys: str | None) -> dict[str, str]:
    """The connector keys a row sets (short names, `KEYS`; None: unset)."""
    return {KEYS[key]: value for key, value in keys.items() if value is not None}


#: What each worker level validates: the full product of the four dimensions, then the edges.
MATRIX = [
    _row(eos=eos, eos_answer=eos_answer, boundary=boundary, boundaries_answer=boundaries_answer)
    for eos, eos_answer, boundary, boundaries_answer in itertools.product(
        [None, "requested", "required", "sometimes"],
        [None, "SUPPORTED", "UNSUPPORTED"],
        ["poll", "interval", "connector", "sometimes"],
        ["SUPPORTED", "UNSUPPORTED"],
    )
] + [
    _row(eos="required", eos_answer="raise"),
    _row(boundary="connector", boundaries_answer="raise"),
    _row(boundary="connector"),  # the connector answers None
    _row(eos="REQUIRED", eos_answer="SUPPORTED", boundary=" Connector ", boundaries_answer="SUPPORTED"),
    _row(eos="required", eos_answer="UNSUPPORTED", boundary="connector", boundaries_answer="UNSUPPORTED"),
    *(_row(boundary=boundary, interval="250") for boundary in ("poll", "interval", "sometimes")),
    _row(boundary="connector", boundaries_answer="SUPPORTED", interval="250"),
    _row(boundary="interval", interval="-1"),
    _row(boundary="poll", interval="soon"),
    _row(offsets="eos-offsets"),
    _row(offsets=""),
    _row(offsets="eos-offsets", eos="required", eos_answer="SUPPORTED"),
]
#: A bundled connector's own answer: Kafka's FileStreamSource supports exactly-once for a file, not for
#: stdin, and a config it cannot parse makes its answer an error.
FILE_ROWS = [
    {"connector.class": FILE_SOURCE, **keys}
    for keys in (
        {EOS: "required", "topic": "t", "file": "/tmp/in.txt"},
        {EOS: "required", "topic": "t"},
        {EOS: "required", "file": "/tmp/in.txt"},
        {EOS: "required", "topic": "t", "batch.size": "many"},
        {BOUNDARY: "connector", "topic": "t", "file": "/tmp/in.txt"},
    )
]
#: What each worker level also creates: accepted and refused configs.
CREATED = [
    _row(),
    _row(eos="required", eos_answer="SUPPORTED"),
    _row(eos="required", eos_answer="UNSUPPORTED"),
    _row(eos="required"),
    _row(eos="sometimes"),
    _row(boundary="connector", boundaries_answer="SUPPORTED"),
    _row(boundary="connector", boundaries_answer="UNSUPPORTED"),
    _row(eos="required", eos_answer="UNSUPPORTED", boundary="connector", boundaries_answer="raise"),
    FILE_ROWS[0],
    FILE_ROWS[1],
]


def _config(row: dict[str, str], name: str) -> dict[str, str]:
    return {"connector.class": PLUGIN, "name": name, "tasks.max": "1", **row}


def _plugin(config: dict[str, str]) -> str:
    return config["connector.class"]


#: Validate calls sent to a worker at once (each is answered on its own; the matrix is ~110 calls).
IN_FLIGHT = 4
#: Keys whose values differ by design (docs/differences.md, "*.plugin.version defaults"): the bundled
#: plugins' own versions (kconnect's FileStreamSource and converters are 0.1.0, Kafka's 4.3.1).
OWN_VERSIONS = (
    "connector.plugin.version",
    "key.converter.plugin.version",
    "value.converter.plugin.version",
    "header.converter.plugin.version",
)


def summary(body: dict[str, Any]) -> dict[str, Any]:
    """What a user reads in a validate answer: the error count, each key's errors and value."""
    values = [c["value"] for c in body["configs"] if c["value"] is not None]
    return {
        "error_count": body["error_count"],
        "errors": {v["name"]: v["errors"] for v in values if v["errors"]},
        "values": {v["name"]: v["value"] for v in values if v["name"] not in OWN_VERSIONS},
    }


@pytest.fixture(scope="module")
def java_classes(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The Java test connector, compiled once."""
    return compile_java(tmp_path_factory.mktemp("java-classes"), JAVA_ORACLE / "ExactlyOnceAnswers.java")


def group_props(bootstrap: str, stem: str, level: str) -> dict[str, str]:
    """A worker of a group of its own (internal topics included) with ``exactly.once.source.support``."""
    group = f"{stem}-{level}-{uuid.uuid4().hex[:8]}"
    return {
        "bootstrap.servers": bootstrap,
        "group.id": group,
        "config.storage.topic": f"{group}-configs",
        "offset.storage.topic": f"{group}-offsets",
        "status.storage.topic": f"{group}-status",
        **{f"{kind}.storage.replication.factor": "1" for kind in ("config", "offset", "status")},
        "offset.storage.partitions": "1",
        "status.storage.partitions": "1",
        "key.converter": "org.apache.kafka.connect.json.JsonConverter",
        "value.converter": "org.apache.kafka.connect.json.JsonConverter",
        "exactly.once.source.support": level,
    }


def standalone_props(bootstrap: str, folder: Path, stem: str) -> dict[str, str]:
    """A standalone worker with its offsets file in `folder`."""
    return {
        "bootstrap.servers": bootstrap,
        "offset.storage.file.filename": str(folder / f"{stem}.offsets"),
        "key.converter": "org.apache.kafka.connect.json.JsonConverter",
        "value.converter": "org.apache.kafka.connect.json.JsonConverter",
    }


@pytest.fixture
def workers(
    request: pytest.FixtureRequest, tmp_path: Path, kafka_bootstrap: str, java_classes: Path
) -> Iterator[tuple[JavaConnectWorker, WorkerProcess]]:
    """A Java and a kconnect worker, both ready: distributed at the worker level the test is
    parametrized with, or both standalone (``standalone``)."""
    level: str = request.param
    standalone = level == STANDALONE
    if standalone:
        theirs, ours_props = (standalone_props(kafka_bootstrap, tmp_path, s) for s in ("java", "kconnect"))
    else:
        theirs = group_props(kafka_bootstrap, "java-eos", level)
        ours_props = group_props(kafka_bootstrap, "kconnect-eos", level)
    java = JavaConnectWorker(tmp_path, theirs, java_classes, standalone=standalone)
    env = plugin_env(install_connectors(tmp_path / "plugins"))
    ours = WorkerProcess(
        tmp_path,
        {**ours_props, "spark.master": "local[1]"},
        env=env,
        mode="standalone" if standalone else "distributed",
    )
    java.start()
    try:
        ours.start(timeout=180)
        try:
            java.wait_ready()
            # Validation needs no executor: the worker answers once it has joined its group.
            ours.wait_for("the worker to join", lambda: ours.get("/connectors").status_code == 200, 180)
            yield java, ours
        finally:
            ours.stop()
    finally:
        java.stop()


def _validate(worker: JavaConnectWorker | WorkerProcess, config: dict[str, str]) -> dict[str, Any]:
    response = worker.request("PUT", f"/connector-plugins/{_plugin(config)}/config/validate", config)
    assert response.status_code == 200, response.text
    return summary(response.json())


def _create(worker: JavaConnectWorker | WorkerProcess, config: dict[str, str]) -> tuple[int, Any]:
    body = {"name": config["name"], "config": config, "initial_state": "STOPPED"}
    response = worker.request("POST", "/connectors", body)
    if response.status_code == 201:
        created = response.json()
        assert worker.request("DELETE", f"/connectors/{config['name']}").status_code == 204
        return 201, {key: created[key] for key in ("name", "config", "type")}
    body = response.json()
    # Kafka's message names the validate endpoint with a literal {connectorType}; kconnect's, the class.
    message = body["message"].replace(
        f"/connector-plugins/{_plugin(config)}/", "/connector-plugins/{connectorType}/"
    )
    return response.status_code, {**body, "message": message}


@pytest.mark.parametrize("workers", ["disabled", "preparing", "enabled", STANDALONE], indirect=True)
def test_validate_and_create_answer_the_exactly_once_keys_as_java_4_3_1(
    workers: tuple[JavaConnectWorker, WorkerProcess],
) -> None:
    java, ours = workers
    rows = MATRIX + FILE_ROWS
    configs = [_config(row, "eos") for row in rows]
    with ThreadPoolExecutor(IN_FLIGHT) as calls:
        theirs = list(calls.map(lambda config: _validate(java, config), configs))
        answers = list(calls.map(lambda config: _validate(ours, config), configs))
    mismatches = [
        (row, java_answer, answer)
        for row, config, java_answer, answer in zip(rows, configs, theirs, answers, strict=True)
        if answer != java_answer
    ]
    assert not mismatches, "\n\n".join(f"{row}\n java: {j}\n ours: {o}" for row, j, o in mismatches)
    for index, row in enumerate(CREATED):
        config = _config(row, f"eos-{index}-{uuid.uuid4().hex[:6]}")
        assert _create(ours, config) == _create(java, config), row


def _started(workers: list[JavaConnectWorker | WorkerProcess]) -> None:
    """Start one worker after the other, each ready before the next (the first leads its group)."""
    for worker in workers:
        if isinstance(worker, JavaConnectWorker):
            worker.start().wait_ready()
        else:
            worker.start(timeout=180)
            worker.wait_for(
                "the worker to join", lambda w=worker: w.get("/connectors").status_code == 200, 180
            )


def test_during_an_upgrade_a_create_is_validated_by_the_worker_it_reaches_as_java_4_3_1(
    tmp_path: Path, kafka_bootstrap: str, java_classes: Path
) -> None:
    """A leader with ``enabled`` and a follower still ``preparing`` (a rolling upgrade's second step):
    Kafka's follower validates a create with its own level before it forwards it (DistributedHerder's
    doPutConnectorConfig), so ``required`` is refused through the follower and accepted by the leader."""
    env = plugin_env(install_connectors(tmp_path / "plugins"))
    config = _config(_row(eos="required", eos_answer="SUPPORTED"), "upgrade")
    answers = {}
    for side in ("java", "kconnect"):
        props = group_props(kafka_bootstrap, f"{side}-upgrade", "enabled")
        workers: list[JavaConnectWorker | WorkerProcess] = []
        for level in ("enabled", "preparing"):
            worker_props = {**props, "exactly.once.source.support": level}
            if side == "java":
                workers.append(JavaConnectWorker(tmp_path, worker_props, java_classes))
            else:
                workers.append(
                    WorkerProcess(
                        tmp_path, {**worker_props, "spark.master": "local[1]"}, env=env, mode="distributed"
                    )
                )
        try:
            _started(workers)
            leader, follower = workers
            answers[side] = (_create(follower, config), _create(leader, config))
        finally:
            for worker in reversed(workers):
                worker.stop()
    assert answers["kconnect"] == answers["java"]
    (through_follower, through_leader) = answers["kconnect"]
    assert through_follower[0] == 400 and NO_EXACTLY_ONCE_TEXT in through_follower[1]["message"]
    assert through_leader[0] == 201
