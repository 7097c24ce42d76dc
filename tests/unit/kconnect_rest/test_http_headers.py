"""``response.http.headers.config`` (KIP-577): Kafka's checks and texts, Jetty's rules, on every answer."""

from __future__ import annotations

import time
from email.utils import parsedate_to_datetime

import pytest
from kconnect.worker_config import ConfigFileError, WorkerConfig
from kconnect_rest import create_app
from kconnect_rest.http_headers import HeaderRule, ResponseHeaderRules, csv_split
from litestar import Litestar
from litestar.testing import TestClient

from tests.fake_herder import FakeHerder

KEY = "response.http.headers.config"
RULE = "Expected: '[action] [header name]:[header value]'"
PAIR = "Expected: '[header name]:[header value]'"


def _client(value: str) -> TestClient[Litestar]:
    return TestClient(create_app(FakeHerder(), WorkerConfig.from_props({KEY: value})))


@pytest.mark.parametrize(
    ("value", "items"),
    [
        ("set A: 1, add B: 2", ["set A: 1", "add B: 2"]),
        (
            '"add Cache-Control: no-cache, no-store", set X: 1',
            ["add Cache-Control: no-cache, no-store", "set X: 1"],
        ),
        ('"add X: a\\"b"', ['add X: a"b']),
        ("set A: 1,", ["set A: 1"]),
        ("set A: 1,,set B: 2", ["set A: 1", "", "set B: 2"]),
        ('add X: "a b"', ['add X: "a b"']),
    ],
)
def test_rules_are_split_as_jetty_splits_them(value: str, items: list[str]) -> None:
    assert csv_split(value) == items


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("set", "Invalid format of header config 'set'. " + RULE),
        (
            "set A: 1,,set B: 2",
            "Invalid format of header config ''. " + RULE,
        ),
        (
            "bogus X-D: 1",
            "Invalid header config action: 'bogus'. Expected one of [set, add, setDate, addDate]",
        ),
        (
            "set X-D",
            "Invalid format of header name and header value pair 'X-D'. " + PAIR,
        ),
        (
            "set X: a:b",
            "Invalid format of header name and header value pair 'X: a:b'. " + PAIR,
        ),
        (
            "set X:",
            "Invalid format of header name and header value pair 'X:'. " + PAIR,
        ),
        ("set X Y: z", "Invalid header name 'X Y'. The '[header name]' cannot contain whitespace"),
        ("set : z", "Invalid header name ''. The '[header name]' cannot contain whitespace"),
        (
            "setDate X-D: abc",
            "Invalid header config 'setDate X-D: abc': the value of a date action must be a number of "
            "milliseconds, not 'abc'",
        ),
    ],
)
def test_a_bad_value_is_a_start_up_error_naming_the_key(value: str, message: str) -> None:
    with pytest.raises(ConfigFileError) as raised:
        create_app(FakeHerder(), WorkerConfig.from_props({KEY: value}, "worker.properties"))
    assert str(raised.value) == f"worker.properties: {KEY}: {message}"


@pytest.mark.parametrize("value", ["", "   "])
def test_blank_is_no_rules(value: str) -> None:
    assert ResponseHeaderRules.from_props({KEY: value}) is None
    assert ResponseHeaderRules.from_props({}) is None


@pytest.mark.parametrize(
    ("rule", "expected"),
    [
        ("set X: 1", HeaderRule("X", "1", add=False, date_offset_ms=None)),
        ("add X : 1", HeaderRule("X", "1", add=True, date_offset_ms=None)),
        (
            "setDate Expires: 31540000000",
            HeaderRule("Expires", "31540000000", add=False, date_offset_ms=31540000000),
        ),
        ("addDate X: -1000", HeaderRule("X", "-1000", add=True, date_offset_ms=-1000)),
        # Kafka checks the action without case, Jetty applies it with case: ADD sets, SetDate is a date
        ("ADD X: 1", HeaderRule("X", "1", add=False, date_offset_ms=None)),
        ("SetDate X: 7", HeaderRule("X", "7", add=False, date_offset_ms=7)),
        ("SETDATE X: 7", HeaderRule("X", "7", add=False, date_offset_ms=None)),
    ],
)
def test_rules_read_as_jetty_reads_them(rule: str, expected: HeaderRule) -> None:
    rules = ResponseHeaderRules.from_props({KEY: rule})
    assert rules is not None
    assert rules.rules == (expected,)


def test_set_add_and_dates_on_an_answer() -> None:
    value = (
        'set X-Frame-Options: DENY,add X-A: 1,add X-A: 2,"add Cache-Control: no-cache, no-store",'
        "setDate X-Expires: 60000"
    )
    with _client(value) as client:
        response = client.get("/connectors")
    assert response.status_code == 200
    assert response.headers["x-frame-options"] == "DENY"
    assert response.headers.get_list("x-a") == ["1", "2"]
    assert response.headers["cache-control"] == "no-cache, no-store"
    ahead = parsedate_to_datetime(response.headers["x-expires"]).timestamp() - time.time()
    assert 55 < ahead <= 60


def test_a_date_is_now_plus_the_offset() -> None:
    rules = ResponseHeaderRules.from_props({KEY: "setDate Expires: 60000,addDate Then: -1000"})
    assert rules is not None
    now_ms = 1_795_000_000_000
    assert rules.apply([], now_ms) == [
        (b"Expires", b"Wed, 18 Nov 2026 11:07:40 GMT"),
        (b"Then", b"Wed, 18 Nov 2026 11:06:39 GMT"),
    ]


def test_set_replaces_and_add_appends() -> None:
    rules = ResponseHeaderRules.from_props({KEY: "set vary: Accept,add X: 2"})
    assert rules is not None
    assert rules.apply([(b"Vary", b"Origin"), (b"X", b"1")], 0) == [
        (b"X", b"1"),
        (b"vary", b"Accept"),
        (b"X", b"2"),
    ]


def test_the_resources_own_headers_win() -> None:
    with _client("set Content-Type: text/html,add Content-Length: 5") as client:
        response = client.get("/connectors")
    assert response.headers["content-type"] == "application/json"
    assert response.headers.get_list("content-length") == ["2"]


@pytest.mark.parametrize(
    ("method", "path", "status"), [("GET", "/nope", 404), ("DELETE", "/", 405), ("HEAD", "/", 200)]
)
def test_every_answer_gets_the_headers(method: str, path: str, status: int) -> None:
    with _client("set X-Frame-Options: DENY") as client:
        response = client.request(method, path)
    assert response.status_code == status
    assert response.headers["x-frame-options"] == "DENY"


def test_without_the_key_no_header_is_added() -> None:
    with TestClient(create_app(FakeHerder(), WorkerConfig.from_props({}))) as client:
        response = client.get("/connectors")
    assert "vary" not in response.headers and "x-frame-options" not in response.headers
