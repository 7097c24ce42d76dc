"""kconnectctl against a real worker on the real broker.

One standalone worker serves the module: HTTPS only, client certificates required (the session's
throwaway CA), behind the basic-auth REST extension, with the test connectors of
``tests/connectors.py`` installed. Every command reaches it through a context of the module's
context file that carries the CA, the client certificate and the credentials, so each test also
checks TLS and basic auth through a context. Most commands run in this process (`Ctl`); the error
test runs the installed command in processes of its own. Tests keep apart by unique names.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from kconnect_basic_auth.credentials import add_user
from kconnect_basic_auth.plugin import KAFKA_CLASS_NAME, UNAUTHORIZED_MESSAGE

from ctl.tests.integration.runner import Ctl
from tests import rest_expectations as rx
from tests.integration.harness import lines
from tests.plugin_package import install_connectors, plugin_env
from tests.throwaway_ca import Certificate, CertificateAuthority, pem_stores
from tests.worker_process import WorkerProcess, count_lines, free_port

pytestmark = pytest.mark.integration

USER = ("operator", "s3cret-pw")


@pytest.fixture(scope="module")
def ctl_cert(ca: CertificateAuthority) -> Certificate:
    """The client certificate kconnectctl presents (its key not encrypted)."""
    return ca.issue("kconnectctl")


@pytest.fixture(scope="module")
def worker(
    tmp_path_factory: pytest.TempPathFactory,
    kafka_bootstrap: str,
    ca: CertificateAuthority,
    server_cert: Certificate,
    ctl_cert: Certificate,
) -> Iterator[WorkerProcess]:
    """One standalone worker: HTTPS with client certificates required, basic auth, test connectors."""
    workdir = tmp_path_factory.mktemp("kconnectctl")
    credentials = workdir / "credentials"
    add_user(credentials, *USER)
    props = {
        "bootstrap.servers": kafka_bootstrap,
        "offset.storage.file.filename": str(workdir / "connect.offsets"),
        "offset.flush.interval.ms": "300",
        "rest.extension.classes": KAFKA_CLASS_NAME,
        "rest.basic.auth.credentials.file": str(credentials),
        **pem_stores(server_cert, ca, "listeners.https."),
        "listeners.https.ssl.client.auth": "required",
    }
    env = plugin_env(install_connectors(workdir / "plugins"))
    started = WorkerProcess(workdir, props, env=env, tls=ca.client_context(ctl_cert)).start()
    yield started
    started.stop()


def tls_options(ca: CertificateAuthority, cert: Certificate) -> list[str]:
    """``set-context`` options trusting the CA and presenting `cert`."""
    return [
        "--ca-cert",
        str(ca.certificate),
        "--client-cert",
        str(cert.certificate),
        "--client-key",
        str(cert.key),
    ]


@pytest.fixture(scope="module")
def ctl(
    worker: WorkerProcess,
    tmp_path_factory: pytest.TempPathFactory,
    ca: CertificateAuthority,
    ctl_cert: Certificate,
) -> Ctl:
    """kconnectctl with one context, ``local``: the worker's URL, its CA, a client certificate and
    the user's credentials."""
    run = Ctl(tmp_path_factory.mktemp("ctl") / "kconnectctl.yaml")
    credentials = ["--username", USER[0], "--password", USER[1]]
    created = run(
        "config", "set-context", "local", "--cluster", worker.url, *credentials, *tls_options(ca, ctl_cert)
    )
    assert created.stdout == "context local created (current)\n"
    return run


def name(stem: str) -> str:
    """A connector name no other test uses."""
    return f"{stem}-{uuid.uuid4().hex[:8]}"


def wait_state(ctl: Ctl, worker: WorkerProcess, connector: str, state: str, tasks: int | None = None) -> None:
    """Poll ``get connectors -o json`` until the connector and all its tasks are in `state`."""

    def reached() -> bool:
        status = ctl.json("get", "connectors")[connector]["status"]
        task_states = [t["state"] for t in status["tasks"]]
        return (
            status["connector"]["state"] == state
            and all(s == state for s in task_states)
            and (tasks is None or len(task_states) == tasks)
        )

    worker.wait_for(f"{connector} to be {state}", reached, timeout=90)


def file_source(tmp_path: Path, connector: str, count: int) -> tuple[Path, Path]:
    """A FileStreamSource connector file (``.properties``) over a file of `count` lines."""
    source = tmp_path / f"{connector}.txt"
    source.write_text(lines(0, count), encoding="utf-8")
    props = tmp_path / f"{connector}.properties"
    props.write_text(
        f"name={connector}\nconnector.class=FileStreamSource\nfile={source}\ntopic={connector}-topic\n"
        "custom.note=first\n",
        encoding="utf-8",
    )
    return props, source


def test_apply_creates_then_finds_it_unchanged_then_prints_the_keys_that_changed(
    ctl: Ctl, worker: WorkerProcess, tmp_path: Path
) -> None:
    connector = name("apply")
    props, source = file_source(tmp_path, connector, 10)
    assert ctl("apply", "-f", str(props)).stdout == f"connector {connector} created\n"
    assert ctl("apply", "-f", str(props)).stdout == f"connector {connector} unchanged\n"

    changed = tmp_path / "changed.json"
    config = {"connector.class": "FileStreamSource", "file": str(source), "topic": "other", "batch.size": 100}
    changed.write_text(json.dumps({"name": connector, "config": config}), encoding="utf-8")
    dry = ctl("apply", "-f", str(changed), "--dry-run").stdout
    assert dry.startswith(f"connector {connector} would be configured\n")
    applied = ctl("apply", "-f", str(changed)).stdout
    assert applied == (
        f"connector {connector} configured\n"
        "+ batch.size=100\n"
        "- custom.note=first\n"
        f"~ topic: {connector}-topic -> other\n"
    )
    stored = worker.get(f"/connectors/{connector}/config", auth=USER).json()
    assert stored == {**{k: str(v) for k, v in config.items()}, "name": connector}

    # --name beats the file's name: the same file makes a second connector.
    renamed = name("renamed")
    assert ctl("apply", "-f", str(props), "--name", renamed).stdout == f"connector {renamed} created\n"
    assert worker.get(f"/connectors/{renamed}/config", auth=USER).json()["name"] == renamed
    ctl("delete", "connector", connector, renamed)


def test_get_and_describe_in_each_output_format(ctl: Ctl, worker: WorkerProcess, tmp_path: Path) -> None:
    connector = name("get")
    props, _source = file_source(tmp_path, connector, 10)
    ctl("apply", "-f", str(props))
    wait_state(ctl, worker, connector, "RUNNING", tasks=1)

    table = ctl("get", "connectors").stdout.splitlines()
    assert table[0].split() == ["NAME", "TYPE", "STATE", "TASKS"]
    assert [connector, "source", "RUNNING", "1", "RUNNING"] in [row.split() for row in table[1:]]
    assert connector in ctl("get", "connectors", "-o", "name").stdout.splitlines()
    as_yaml = yaml.safe_load(ctl("get", "connectors", "-o", "yaml").stdout)
    assert as_yaml[connector]["info"]["config"]["topic"] == f"{connector}-topic"
    assert as_yaml == ctl.json("get", "connectors")

    plugins = ctl("get", "plugins").stdout.splitlines()
    assert plugins[0].split() == ["CLASS", "TYPE", "VERSION"]
    classes = {row.split()[0]: row.split()[1] for row in plugins[1:]}
    assert classes["org.apache.kafka.connect.file.FileStreamSourceConnector"] == "source"
    assert "transformation" in classes.values()
    assert ctl.json("get", "plugins") == yaml.safe_load(ctl("get", "plugins", "-o", "yaml").stdout)

    # The source's offset and its topic, once its lines were sent.
    worker.wait_for(
        "the source's offset", lambda: ctl.json("get", "offsets", connector)["offsets"] != [], timeout=60
    )
    offsets = ctl("get", "offsets", connector).stdout.splitlines()
    assert offsets[0].split() == ["PARTITION", "OFFSET"]
    assert offsets[1].split()[0] == json.dumps({"filename": str(_source)}, separators=(",", ":"))
    assert ctl.json("offsets", "get", connector) == ctl.json("get", "offsets", connector)

    described = ctl.json("describe", "connector", connector)
    assert set(described) == {"name", "type", "config", "status", "tasks", "topics"}
    assert described["name"] == connector and described["type"] == "source"
    assert described["status"]["connector"]["state"] == "RUNNING"
    assert described["topics"] == [f"{connector}-topic"]
    assert yaml.safe_load(ctl("describe", "connector", connector, "-o", "yaml").stdout) == described
    text = ctl("describe", "connector", connector).stdout
    assert text.splitlines()[0].split() == ["Name:", connector]
    assert "State:      RUNNING" in text
    assert f"  topic            {connector}-topic" in text
    assert "Tasks:\n  ID  STATE    WORKER ID\n  0   RUNNING" in text
    assert f"Topics:\n  {connector}-topic" in text
    ctl("delete", "connector", connector)


def test_pause_resume_and_restart_only_what_failed(ctl: Ctl, worker: WorkerProcess, tmp_path: Path) -> None:
    connector = name("flaky")
    config = tmp_path / "flaky.json"
    flaky = {
        "connector.class": "FlakySource",
        "topic": f"{connector}-topic",
        "lines": "20",
        "runs.file": str(tmp_path / "runs"),
        "failing.runs": "1",
        "value.converter": "org.apache.kafka.connect.storage.StringConverter",
    }
    config.write_text(json.dumps(flaky), encoding="utf-8")
    ctl("apply", "-f", str(config), "--name", connector)
    worker.wait_for(
        "the task to fail",
        lambda: ctl.json("get", "connectors")[connector]["status"]["tasks"][0]["state"] == "FAILED",
    )
    described = ctl("describe", "connector", connector).stdout
    assert "Trace of task 0:\n" in described and "Flaky run 1 fails on purpose" in described
    row = next(r.split() for r in ctl("get", "connectors").stdout.splitlines() if r.startswith(connector))
    assert row == [connector, "source", "RUNNING", "1", "FAILED"]

    restarted = ctl("restart", "connector", connector, "--include-tasks", "--only-failed")
    assert restarted.stdout == f"connector {connector}: restarting task 0\n"
    wait_state(ctl, worker, connector, "RUNNING", tasks=1)
    assert count_lines(tmp_path / "runs") == 2
    nothing = ctl("restart", "connector", connector, "--include-tasks", "--only-failed")
    assert nothing.stdout == f"connector {connector}: nothing to restart\n"
    assert ctl("restart", "task", f"{connector}/0").stdout == f"task {connector}/0 restarted\n"
    worker.wait_for("a third run of the task", lambda: count_lines(tmp_path / "runs") == 3)

    # Bulk: the unknown name is refused (exit 1, the server's text), the known one still paused.
    missing = name("missing")
    paused = ctl("pause", "connector", missing, connector, expect=1)
    assert paused.stdout == f"connector {connector} paused\n"
    assert paused.stderr == f"error: Unknown connector {missing}\n"
    wait_state(ctl, worker, connector, "PAUSED", tasks=1)
    assert ctl("resume", "connector", connector).stdout == f"connector {connector} resumed\n"
    wait_state(ctl, worker, connector, "RUNNING", tasks=1)
    assert ctl("restart", "connector", connector).stdout == f"connector {connector} restarted\n"
    ctl("delete", "connector", connector)


def test_stop_then_alter_and_reset_the_offsets_of_a_file_source(
    ctl: Ctl, worker: WorkerProcess, tmp_path: Path
) -> None:
    connector = name("offsets")
    props, source = file_source(tmp_path, connector, 10)
    ctl("apply", "-f", str(props))
    partition = {"filename": str(source)}
    whole_file = [{"partition": partition, "offset": {"position": len(lines(0, 10).encode())}}]
    worker.wait_for(
        "the whole file's offset", lambda: ctl.json("get", "offsets", connector)["offsets"] == whole_file
    )
    altered = tmp_path / "offsets.json"
    altered.write_text(json.dumps({"offsets": [{"partition": partition, "offset": {"position": 8}}]}))

    # A running connector's offsets cannot change: the server's message, exit 1.
    refused = ctl("offsets", "alter", connector, "-f", str(altered), expect=1)
    assert refused.stderr == f"error: {rx.not_stopped(connector)}\n"

    assert ctl("stop", "connector", connector).stdout == f"connector {connector} stopped\n"
    wait_state(ctl, worker, connector, "STOPPED", tasks=0)
    assert ctl("offsets", "alter", connector, "-f", str(altered)).stdout == rx.OFFSETS_ALTERED + "\n"
    assert ctl.json("get", "offsets", connector) == {
        "offsets": [{"partition": partition, "offset": {"position": 8}}]
    }
    assert ctl("offsets", "reset", connector).stdout == rx.OFFSETS_RESET + "\n"
    assert ctl.json("get", "offsets", connector) == {"offsets": []}

    assert ctl("delete", "connector", connector).stdout == f"connector {connector} deleted\n"
    gone = ctl("describe", "connector", connector, expect=1)
    assert gone.stdout == "" and gone.stderr == f"error: {rx.connector_not_found(connector)}\n"


def test_errors_are_one_line_with_the_exit_code_scripts_rely_on(
    ctl: Ctl, worker: WorkerProcess, tmp_path: Path, ca: CertificateAuthority, ctl_cert: Certificate
) -> None:
    # The real command, in processes of its own: exit codes and stderr as a script sees them.
    own = Ctl(ctl.config_file)

    # 1: the server refused; its Kafka-style message, on one line.
    bad_class = tmp_path / "bad.properties"
    bad_class.write_text(f"name={name('bad')}\nconnector.class=NoSuchConnector\n", encoding="utf-8")
    refused = own("apply", "-f", str(bad_class), expect=1, process=True)
    assert refused.stderr.startswith("error: ") and "NoSuchConnector" in refused.stderr

    # 1: TLS through a context but no credentials: the basic-auth extension's 401.
    anonymous = Ctl(tmp_path / "anonymous.yaml")
    anonymous("config", "set-context", "anon", "--cluster", worker.url, *tls_options(ca, ctl_cert))
    assert anonymous("get", "connectors", expect=1, process=True).stderr == f"error: {UNAUTHORIZED_MESSAGE}\n"

    # 3: nothing listens there; the worker's certificate is not trusted (--cluster alone: no CA).
    dead = f"http://127.0.0.1:{free_port()}"
    unreachable = own("get", "connectors", "--cluster", dead, expect=3, process=True)
    assert unreachable.stderr == f"error: cannot reach {dead}: connection refused\n"
    untrusted = own("--cluster", worker.url, "get", "connectors", expect=3, process=True)
    assert untrusted.stderr.startswith(f"error: cannot reach {worker.url}: certificate verify failed: ")

    # 2: bad input files, named with the line, and bad usage; nothing reaches the cluster.
    broken = tmp_path / "broken.json"
    broken.write_text('{\n  "connector.class": "FileStreamSource",\n  "file" "x"\n}\n', encoding="utf-8")
    assert own("apply", "-f", str(broken), expect=2, process=True).stderr == (
        f"error: {broken}: line 3: Expecting ':' delimiter\n"
    )
    # Every file is read before anything is sent: with one bad file, the good one is not created.
    good, _source = file_source(tmp_path, name("good"), 1)
    own("apply", "-f", str(good), "-f", str(broken), expect=2)
    assert own("get", "connectors", "-o", "name").stdout.count("good-") == 0
    nameless = tmp_path / "nameless.properties"
    nameless.write_text("connector.class=FileStreamSource\n", encoding="utf-8")
    assert own("apply", "-f", str(nameless), expect=2).stderr == (
        f"error: {nameless}: no connector name: set 'name' in the file or give --name\n"
    )
    missing = tmp_path / "missing.properties"
    assert (
        own("apply", "-f", str(missing), expect=2).stderr == f"error: {missing}: no such file or directory\n"
    )
    assert "invalid choice: 'connectorz'" in own("get", "connectorz", expect=2, process=True).stderr
    assert own("patch", "connector", "x", expect=2).stderr == (
        "error: nothing to patch: give -s KEY=VALUE or -r KEY\n"
    )


def test_patch_sets_and_removes_keys(ctl: Ctl, worker: WorkerProcess, tmp_path: Path) -> None:
    connector = name("patch")
    props, _source = file_source(tmp_path, connector, 1)
    ctl("apply", "-f", str(props))
    patched = ctl(
        "patch", "connector", connector, "-s", "topic=patched", "-s", "batch.size=5", "-r", "custom.note"
    )
    assert patched.stdout == (
        f"connector {connector} patched\n+ batch.size=5\n- custom.note=first\n"
        f"~ topic: {connector}-topic -> patched\n"
    )
    assert worker.get(f"/connectors/{connector}/config", auth=USER).json()["topic"] == "patched"
    ctl("delete", "connector", connector)


def test_contexts_choose_the_cluster_and_its_credentials(
    worker: WorkerProcess, tmp_path: Path, ca: CertificateAuthority, ctl_cert: Certificate
) -> None:
    own = Ctl(tmp_path / "contexts.yaml")
    dead = f"http://127.0.0.1:{free_port()}"
    assert (
        own("config", "set-context", "dead", "--cluster", dead).stdout == "context dead created (current)\n"
    )
    live = ["--cluster", worker.url, "--username", USER[0], "--password", USER[1], *tls_options(ca, ctl_cert)]
    assert own("config", "set-context", "live", *live).stdout == "context live created\n"
    assert own("get", "connectors", expect=3).stderr == f"error: cannot reach {dead}: connection refused\n"
    own("--context", "live", "get", "connectors")
    assert own("config", "use-context", "live").stdout == "current context: live\n"
    own("get", "connectors")
    listed = [row.split() for row in own("config", "get-contexts").stdout.splitlines()]
    assert listed == [
        ["CURRENT", "NAME", "CLUSTER", "AUTH"],
        ["dead", dead, "-"],
        ["*", "live", worker.url, "basic", f"({USER[0]}),", "client", "certificate"],
    ]
    assert USER[1] not in own("config", "get-contexts", "-o", "yaml").stdout
    # --cluster beats the context's URL; a named context's credentials and TLS files go with it.
    own("--context", "live", "--cluster", dead, "get", "connectors", expect=3)
    assert own("--context", "nope", "get", "connectors", expect=2).stderr == (
        f"error: {own.config_file}: no context named 'nope'\n"
    )
    assert own.config_file.stat().st_mode & 0o777 == 0o600

    # --insecure: the worker's certificate is not checked; the client certificate is still presented.
    insecure = ["--cluster", worker.url, "--username", USER[0], "--password", USER[1], "--insecure"]
    client = ["--client-cert", str(ctl_cert.certificate), "--client-key", str(ctl_cert.key)]
    own("config", "set-context", "insecure", *insecure, *client)
    own("--context", "insecure", "get", "connectors")

    # A wrong password, through the context: the server's 401, exit 1.
    own("config", "set-context", "live", "--password", "wrong")
    assert own("get", "connectors", expect=1).stderr == f"error: {UNAUTHORIZED_MESSAGE}\n"
    assert worker.get("/connectors", auth=USER).status_code == 200
