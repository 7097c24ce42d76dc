"""What an alter-offsets request may carry (KIP-875): Kafka's format rule; a connector's refusal is a 400."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest
from kconnect.errors import BadRequestError, ConnectError
from kconnect.herder.offsets import ConnectorOffsetsStore, parse_sink_offsets, parse_source_offsets
from kconnect.model import ConnectorOffset
from kconnect.storage.memory import MemoryOffsetBackingStore


def _nested(depth: int) -> Any:
    value: Any = "x"
    for _ in range(depth):
        value = {"k": value}
    return value


@pytest.mark.parametrize(
    ("partition", "offset", "message"),
    [
        ({"filename": {"a": 1}}, {"position": 1}, "field filename contains MAP"),
        ({"filename": ["a"]}, {"position": 1}, "field filename contains ARRAY"),
        ({"filename": "/x"}, {"position": [1]}, "field position contains ARRAY"),
        ({"filename": _nested(100_000)}, {"position": 1}, "field filename contains MAP"),
    ],
)
def test_source_offsets_with_non_primitive_values_are_refused_with_kafkas_text(
    partition: dict[str, Any], offset: dict[str, Any], message: str
) -> None:
    with pytest.raises(
        BadRequestError, match=r"^Offsets may only contain primitive types as values, but "
    ) as e:
        parse_source_offsets([ConnectorOffset(partition, offset)])
    assert str(e.value).endswith(message)


def test_sink_offsets_with_a_nested_partition_are_refused_before_they_are_read() -> None:
    partition = {"kafka_topic": _nested(100_000), "kafka_partition": 0}
    with pytest.raises(BadRequestError, match="field kafka_topic contains MAP"):
        parse_sink_offsets([ConnectorOffset(partition, {"kafka_offset": 1})])


class _Refusing:
    """A connector whose `alter_offsets` raises `error`."""

    error: Exception = ConnectError(
        "The value for the 'position' key in the offset is expected to be a Long value"
    )

    def alter_offsets(self, config: Mapping[str, str], offsets: Mapping[Any, Any]) -> bool:
        raise self.error


async def test_a_connector_refusing_the_offsets_is_a_400_with_its_text() -> None:
    store = ConnectorOffsetsStore(MemoryOffsetBackingStore(), admin=lambda config: None)  # type: ignore[arg-type,return-value]
    change = [ConnectorOffset({"filename": "/x"}, {"position": "NaN"})]
    with pytest.raises(BadRequestError, match=r"^The value for the 'position' key in the offset is expected"):
        await store.alter("c", {}, _Refusing, sink=False, offsets=change)
    assert (await store.read("c", sink=False)).offsets == []  # nothing written


async def test_a_connector_crashing_in_alter_offsets_stays_a_500() -> None:
    class Crashing(_Refusing):
        error = ValueError("bug")

    store = ConnectorOffsetsStore(MemoryOffsetBackingStore(), admin=lambda config: None)  # type: ignore[arg-type,return-value]
    with pytest.raises(ConnectError, match="its alter_offsets raised ValueError") as e:
        await store.alter("c", {}, Crashing, sink=False, offsets=[ConnectorOffset({"f": "x"}, {"p": 1})])
    assert not isinstance(e.value, BadRequestError)
