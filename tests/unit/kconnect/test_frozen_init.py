"""fast_init and positional_constructor build exactly what the dataclass's own __init__ builds."""

from __future__ import annotations

import dataclasses
import inspect
from typing import Any

import pytest
from kconnect.data.connect_schema import SchemaAndValue
from kconnect.frozen_init import fast_init, positional_constructor
from kconnect.records import Header, Headers, SinkRecord, SourceRecord, TimestampType


@dataclasses.dataclass(frozen=True, slots=True)
class Base:
    name: str
    count: int = 3
    tags: list[str] = dataclasses.field(default_factory=list)


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class Child(Base):
    extra: Any = None
    required: int


def test_same_signature_as_the_dataclass() -> None:
    @dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
    class Plain(Base):
        extra: Any = None
        required: int

    @fast_init
    @dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
    class Quick(Base):
        extra: Any = None
        required: int

    def shape(cls: type) -> list[tuple[str, Any, str]]:
        parameters = inspect.signature(cls).parameters.values()
        return [(p.name, p.kind, repr(p.default)) for p in parameters]

    assert shape(Quick) == shape(Plain)
    assert [name for name, _, _ in shape(Quick)] == ["name", "count", "tags", "extra", "required"]
    assert shape(Quick)[2][2] == "<factory>"


@pytest.mark.parametrize(
    ("args", "kwargs"),
    [
        (("a",), {"required": 1}),
        (("a", 5), {"required": 1, "extra": {"k": 1}}),
        (("a", 5, ["x"]), {"required": 2}),
        ((), {"name": "b", "required": 0, "tags": ["y"]}),
    ],
)
def test_builds_what_the_dataclass_builds(args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    @fast_init
    @dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
    class Quick(Base):
        extra: Any = None
        required: int

    quick, plain = Quick(*args, **kwargs), Child(*args, **kwargs)
    assert {f.name: getattr(quick, f.name) for f in dataclasses.fields(Quick)} == {
        f.name: getattr(plain, f.name) for f in dataclasses.fields(Child)
    }
    with pytest.raises(dataclasses.FrozenInstanceError):
        quick.name = "c"  # type: ignore[misc]


def test_a_default_factory_makes_a_new_value_each_time() -> None:
    @fast_init
    @dataclasses.dataclass(frozen=True, slots=True)
    class Quick:
        tags: list[str] = dataclasses.field(default_factory=list)

    first, second = Quick(), Quick()
    assert first.tags == [] and first.tags is not second.tags


def test_missing_and_unknown_arguments_fail_as_with_the_dataclass() -> None:
    @fast_init
    @dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
    class Quick(Base):
        required: int

    with pytest.raises(TypeError, match="required"):
        Quick("a")  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="nope"):
        Quick("a", required=1, nope=2)  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        Quick("a", 1, [], 4)  # type: ignore[misc]


def test_refuses_what_it_would_get_wrong() -> None:
    @dataclasses.dataclass(frozen=True, slots=True)
    class WithPostInit:
        a: int

        def __post_init__(self) -> None:
            pass

    @dataclasses.dataclass(frozen=True, slots=True)
    class WithNoInitField:
        a: int
        b: int = dataclasses.field(default=0, init=False)

    with pytest.raises(TypeError, match="__post_init__"):
        fast_init(WithPostInit)
    with pytest.raises(TypeError, match="init=False"):
        fast_init(WithNoInitField)


def test_the_records_keep_their_meaning() -> None:
    headers = Headers([Header("h", b"1")])
    record = SourceRecord(
        topic="t", value="v", headers=headers, source_partition={"f": "x"}, source_offset={"p": 1}
    )
    assert (record.topic, record.value, record.headers, record.kafka_partition) == ("t", "v", headers, None)
    assert (
        SourceRecord(topic="t").headers == Headers()
        and SourceRecord(topic="t").headers is not SourceRecord(topic="t").headers
    )
    assert record.new_record(value="w") == SourceRecord(
        topic="t", value="w", headers=headers, source_partition={"f": "x"}, source_offset={"p": 1}
    )
    sink = SinkRecord(topic="t", kafka_partition=0, kafka_offset=7, timestamp_type=TimestampType.CREATE_TIME)
    assert (sink.kafka_offset, sink.timestamp_type, sink.original_topic) == (
        7,
        TimestampType.CREATE_TIME,
        None,
    )
    schema, value = SchemaAndValue(None, 5)
    assert (schema, value) == (None, 5)


def test_positional_constructor_equals_the_keyword_init() -> None:
    construct = positional_constructor(SinkRecord)
    headers = Headers()
    built = construct("t", 1, None, b"k", None, b"v", 9, headers, 4, TimestampType.CREATE_TIME, "t", 1, 4)
    assert built == SinkRecord(
        topic="t",
        kafka_partition=1,
        key=b"k",
        value=b"v",
        timestamp=9,
        headers=headers,
        kafka_offset=4,
        timestamp_type=TimestampType.CREATE_TIME,
        original_topic="t",
        original_kafka_partition=1,
        original_kafka_offset=4,
    )
