"""What Kafka Connect's REST API answers, as assertions shared by unit and end-to-end tests.

Each helper takes an httpx-style response (``status_code``, ``headers``, ``content``, ``json()``),
so the same assertion runs against the litestar TestClient and against a live worker.
The message texts are Kafka's (see ``shared/reference/connect-rest.md``).
"""

from __future__ import annotations

from typing import Any, Protocol

CONNECTOR_STATES = {"UNASSIGNED", "RUNNING", "PAUSED", "FAILED", "RESTARTING", "STOPPED"}
PLUGIN_TYPES = {"source", "sink", "converter", "header_converter", "transformation", "predicate"}
CONFIG_KEY_FIELDS = {
    "name", "type", "required", "default_value", "importance", "documentation",
    "group", "width", "display_name", "dependents", "order",
}  # fmt: skip
CONFIG_VALUE_FIELDS = {"name", "value", "recommended_values", "errors", "visible"}


class HttpResponse(Protocol):
    """The part of an httpx / litestar TestClient response the helpers read."""

    status_code: int
    headers: Any
    content: bytes

    def json(self) -> Any: ...


# --- Kafka's texts -----------------------------------------------------------------------------------------


def connector_not_found(name: str) -> str:
    return f"Connector {name} not found"


def no_status_for_connector(name: str) -> str:
    return f"No status found for connector {name}"


def no_status_for_task(name: str, task: int) -> str:
    return f"No status found for task {name}-{task}"


def already_exists(name: str) -> str:
    return f"Connector {name} already exists"


def name_mismatch(in_config: str, in_url: str) -> str:
    return f"Connector name configuration ({in_config}) doesn't match connector name in the URL ({in_url})"


def not_stopped(name: str) -> str:
    return (
        "Connectors must be in the STOPPED state before their offsets can be modified. This can be done for "
        f"the specified connector by issuing a 'PUT' request to the '/connectors/{name}/stop' endpoint"
    )


def plugin_type_mismatch(included: str, plugin: str) -> str:
    return f"Included connector type {included} does not match request type {plugin}"


def unknown_plugin(plugin: str) -> str:
    return f"Unknown plugin {plugin}."


def logger_not_found(name: str) -> str:
    return f"Logger {name} not found."


def invalid_log_level(level: str) -> str:
    return f"invalid log level '{level}'."


NULL_CONFIG_VALUE = "Null value can not be supplied as the configuration value."
EMPTY_OFFSETS = "Partitions / offsets need to be provided for an alter offsets request"
LEVEL_MISSING = "Desired 'level' parameter was not specified in request."
OFFSETS_ALTERED = "The offsets for this connector have been altered successfully"
OFFSETS_RESET = "The offsets for this connector have been reset successfully"
HEALTHY_MESSAGE = "Worker has completed startup and is ready to handle requests."
TOPIC_TRACKING_DISABLED = "Topic tracking is disabled."
TOPIC_RESET_DISABLED = "Topic tracking reset is disabled."


# --- shapes ------------------------------------------------------------------------------------------------


def assert_error(
    response: HttpResponse, status: int, message: str | None = None, *, contains: str = ""
) -> None:
    """An error: the status, exactly ``{"error_code", "message"}`` JSON, and the text when given."""
    assert response.status_code == status, (response.status_code, response.content)
    assert response.headers["content-type"].startswith("application/json"), response.headers
    body = response.json()
    assert set(body) == {"error_code", "message"}, body
    assert body["error_code"] == status, body
    if message is not None:
        assert body["message"] == message, body
    assert contains in (body["message"] or ""), body
    assert "Traceback" not in (body["message"] or ""), body


def assert_empty(response: HttpResponse, status: int) -> None:
    """A success with no body (202 pause/resume/topics reset, 204 stop/delete/restart): no Content-Type."""
    assert response.status_code == status, (response.status_code, response.content)
    assert response.content == b"", response.content
    assert "content-type" not in response.headers, dict(response.headers)
    if status == 202:  # Jetty sends Content-Length: 0 with a 202; a 204 has no length at all
        assert response.headers.get("content-length") == "0", dict(response.headers)


# --- HEAD, OPTIONS and boolean query parameters ------------------------------------------------------------

KAFKA_ALLOW = {
    "/": "HEAD,GET,OPTIONS",
    "/health": "HEAD,GET,OPTIONS",
    "/connectors": "HEAD,POST,GET,OPTIONS",
    "/connectors/{c}": "HEAD,DELETE,GET,OPTIONS",
    "/connectors/{c}/config": "HEAD,GET,OPTIONS,PUT,PATCH",
    "/connectors/{c}/status": "HEAD,GET,OPTIONS",
    # Kafka also lists POST here: its worker-to-worker task-config endpoint, which kconnect does not serve.
    "/connectors/{c}/tasks": "HEAD,GET,OPTIONS",
    "/connectors/{c}/tasks/0/status": "HEAD,GET,OPTIONS",
    "/connectors/{c}/tasks/0/restart": "POST,OPTIONS",
    "/connectors/{c}/pause": "OPTIONS,PUT",
    "/connectors/{c}/resume": "OPTIONS,PUT",
    "/connectors/{c}/stop": "OPTIONS,PUT",
    "/connectors/{c}/restart": "POST,OPTIONS",
    "/connectors/{c}/offsets": "HEAD,DELETE,GET,OPTIONS,PATCH",
    "/connectors/{c}/topics": "HEAD,GET,OPTIONS",
    "/connectors/{c}/topics/reset": "OPTIONS,PUT",
    "/connector-plugins": "HEAD,GET,OPTIONS",
    "/connector-plugins/{p}/config": "HEAD,GET,OPTIONS",
    "/connector-plugins/{p}/config/validate": "OPTIONS,PUT",
    "/admin/loggers": "HEAD,GET,OPTIONS",
    "/admin/loggers/{l}": "HEAD,GET,OPTIONS,PUT",
}
"""``Allow`` of Kafka 4.3.1's answer to OPTIONS on each path, recorded from Java Kafka Connect standalone
(its own jars from Maven Central). ``{c}``/``{p}``/``{l}``: any connector, plugin or logger, existing
or not."""

JAVA_TRUE = ("true", "TRUE", "True", "tRuE")
JAVA_FALSE = ("false", "FALSE", "yes", "1", "on", "t", "garbage", "true ")
"""Spellings Java's ``Boolean.parseBoolean`` reads as true / false; no boolean query parameter is a 400."""


def assert_options(response: HttpResponse, allow: str) -> None:
    """Jersey's OPTIONS answer: 200, ``Allow: A,B`` and the same list as a text/plain body ``A, B``."""
    assert response.status_code == 200, (response.status_code, response.content)
    assert response.headers["allow"] == allow, dict(response.headers)
    assert response.headers["content-type"].startswith("text/plain"), dict(response.headers)
    assert response.content == allow.replace(",", ", ").encode(), response.content


def assert_head(head: HttpResponse, get: HttpResponse) -> None:
    """HEAD answers as GET does (status, Content-Type, Content-Length) without a body."""
    assert head.status_code == get.status_code, (head.status_code, get.status_code)
    assert head.content == b"", head.content
    assert head.headers.get("content-type") == get.headers.get("content-type")
    assert head.headers.get("content-length") == str(len(get.content)), dict(head.headers)


def assert_connector_info(body: Any, name: str, *, type: str | None = None, tasks: int | None = None) -> None:
    """ConnectorInfo: name, config (strings, with name), tasks in order, type."""
    assert set(body) == {"name", "config", "tasks", "type"}, body
    assert body["name"] == name
    assert body["config"]["name"] == name
    assert all(isinstance(v, str) for v in body["config"].values()), body["config"]
    assert body["type"] in {"source", "sink", "unknown"}
    if type is not None:
        assert body["type"] == type
    assert [t["task"] for t in body["tasks"]] == list(range(len(body["tasks"])))
    assert all(t == {"connector": name, "task": t["task"]} for t in body["tasks"]), body["tasks"]
    if tasks is not None:
        assert len(body["tasks"]) == tasks, body["tasks"]


def _assert_state(state: Any, extra: set[str]) -> None:
    assert {"state", "worker_id"} | extra <= set(state) <= {"state", "worker_id", "trace", "version"} | extra
    assert state["state"] in CONNECTOR_STATES, state
    assert isinstance(state["worker_id"], str)
    if "trace" in state:
        assert state["trace"], "trace is omitted when absent, never null or empty"


def assert_task_state(state: Any, task: int | None = None) -> None:
    """One task's status: id, state, worker_id, trace only when present."""
    _assert_state(state, {"id"})
    assert state["state"] != "STOPPED"
    if task is not None:
        assert state["id"] == task


def assert_status(body: Any, name: str, *, state: str | None = None, tasks: int | None = None) -> None:
    """ConnectorStateInfo: name, connector state, tasks, type."""
    assert set(body) == {"name", "connector", "tasks", "type"}, body
    assert body["name"] == name
    _assert_state(body["connector"], set())
    if state is not None:
        assert body["connector"]["state"] == state, body
    for task in body["tasks"]:
        assert_task_state(task)
    if tasks is not None:
        assert len(body["tasks"]) == tasks, body["tasks"]


def assert_task_info(body: Any, name: str) -> None:
    """TaskInfo: ``{"id": {"connector", "task"}, "config": {...}}`` with string values."""
    assert set(body) == {"id", "config"}, body
    assert set(body["id"]) == {"connector", "task"} and body["id"]["connector"] == name
    assert all(isinstance(v, str) for v in body["config"].values())


def assert_plugin_info(body: Any) -> None:
    """PluginInfo: class, type, version only when defined."""
    assert {"class", "type"} <= set(body) <= {"class", "type", "version"}, body
    assert body["type"] in PLUGIN_TYPES, body
    assert body.get("version", "x") not in ("", "undefined", None), body


def assert_config_key_info(body: Any) -> None:
    """ConfigKeyInfo: exactly Kafka's keys (``order``, not ``order_in_group``)."""
    assert set(body) == CONFIG_KEY_FIELDS, body


def assert_config_infos(body: Any, connector_class: str) -> None:
    """ConfigInfos: name is the connector class, error_count counts error strings."""
    assert set(body) == {"name", "error_count", "groups", "configs"}, body
    assert body["name"] == connector_class
    errors = 0
    for info in body["configs"]:
        assert set(info) == {"definition", "value"}, info
        if info["definition"] is not None:
            assert_config_key_info(info["definition"])
        if info["value"] is not None:
            assert set(info["value"]) == CONFIG_VALUE_FIELDS, info["value"]
            errors += len(info["value"]["errors"])
    assert body["error_count"] == errors


def assert_logger_level(body: Any, level: str | None = None) -> None:
    """LoggerLevel: level and last_modified (null until changed)."""
    assert set(body) == {"level", "last_modified"}, body
    assert body["last_modified"] is None or isinstance(body["last_modified"], int)
    if level is not None:
        assert body["level"] == level
