"""FileStreamSink writes each value as Java's FileStreamSinkTask does: ``println(value)``, whether
it gets records (`put`) or columns (`put_batch`)."""

from __future__ import annotations

import datetime
import decimal
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from kconnect import SinkBatch
from kconnect.data.schema import SchemaAndValue, SchemaBuilder
from kconnect.data.struct import Struct
from kconnect_file.sink import FileStreamSinkTask, render

ROW = (
    SchemaBuilder.struct()
    .field("id", SchemaBuilder.int64().build())
    .field("name", SchemaBuilder.string().build())
    .field("price", SchemaBuilder.float64().build())
    .field("ratio", SchemaBuilder.float32().build())
    .field("paid", SchemaBuilder.bool().build())
    .field("note", SchemaBuilder.string().optional().build())
    .field("tags", SchemaBuilder.array(SchemaBuilder.string().build()).build())
    .build()
)


@pytest.mark.parametrize(
    ("value", "line"),
    [
        ("plain text", "plain text"),
        (b"bytes as text", "bytes as text"),
        (None, "null"),
        (True, "true"),
        (42, "42"),
        (1e20, "1.0E20"),
        (decimal.Decimal("-0.00"), "0.00"),
        ({"a": 1, "b": [True, None]}, "{a=1, b=[true, null]}"),
        # Kafka's logical values are java.util.Date: Date.toString (as a JVM in UTC prints it).
        (datetime.date(2024, 1, 2), "Tue Jan 02 00:00:00 UTC 2024"),
        (datetime.time(1, 2, 3, 456000), "Thu Jan 01 01:02:03 UTC 1970"),
        (
            datetime.datetime(2024, 1, 2, 3, 4, 5, 678000, tzinfo=datetime.timezone.utc),
            "Tue Jan 02 03:04:05 UTC 2024",
        ),
        (
            datetime.datetime(2024, 1, 2, 3, 4, 5, tzinfo=datetime.timezone(datetime.timedelta(hours=2))),
            "Tue Jan 02 01:04:05 UTC 2024",
        ),
    ],
)
def test_values_print_as_java_prints_them(value: Any, line: str) -> None:
    assert render(value) == line


def test_a_struct_prints_as_java_struct_to_string() -> None:
    value = (
        Struct(ROW)
        .put("id", 7)
        .put("name", "Ada")
        .put("price", 2.5)
        .put("ratio", 0.1)
        .put("paid", False)
        .put("tags", ["x", "y"])
    )
    # Java's Struct.toString: name=value pairs, null fields left out, each value's own toString
    # (a FLOAT32 as Float.toString: 0.1, not the double 0.10000000149011612).
    assert render(value) == "Struct{id=7,name=Ada,price=2.5,ratio=0.1,paid=false,tags=[x, y]}"


@dataclass
class _Message:
    topic: str
    partition: int
    offset: int
    timestamp: int | None = None
    timestamp_type: int = 0


@pytest.mark.parametrize(
    "values",
    [["a", "b", "", "line with spaces"], ["text", None, 42, {"a": 1}, b"raw"], []],
    ids=["text", "mixed", "empty"],
)
def test_a_batch_of_columns_writes_the_bytes_put_writes(tmp_path: Path, values: list[Any]) -> None:
    batch = SinkBatch(
        [_Message("t", 0, offset) for offset in range(len(values))],
        [SchemaAndValue(None, None)] * len(values),
        [SchemaAndValue(None, value) for value in values],
    )
    written = {}
    for way in ("put", "put_batch"):
        task = FileStreamSinkTask()
        task.start({"file": str(tmp_path / f"{way}.txt")})
        if way == "put":
            task.put(batch.records())
        else:
            task.put_batch(batch)
        task.stop()
        written[way] = (tmp_path / f"{way}.txt").read_bytes()
    assert written["put_batch"] == written["put"] == "".join(f"{render(v)}\n" for v in values).encode()
