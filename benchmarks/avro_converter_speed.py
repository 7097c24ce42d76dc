"""AvroConverter against JsonConverter with schemas, per record, in one process (no Kafka, no Spark).

The row of ``avro.py`` (``struct_lines.VALUE_SCHEMA``: id INT64, name STRING, qty INT32, price
FLOAT64, flag BOOLEAN, note STRING), as ``LineToStruct`` builds it, through ``from_connect_data``
(Connect -> bytes) and ``to_connect_data`` (bytes -> Connect) of three converters:

* ``json``: JsonConverter with ``schemas.enable=true``;
* ``avro``: AvroConverter against Apicurio Registry (``tests/schema_registry_server.py``): the
  schema is registered and fetched once, then every record takes the compiled binary codec;
* ``avro-fastavro``: the same converter with its format on fastavro's path
  (``AvroFormat.encode_with_fastavro`` / ``decode_with_fastavro``), the path before the compiled
  codec, to compare in the same run.

Each round times every converter over the same records, one after the other, so the machine's
other load falls on all of them alike; the table is the median per record over the rounds. Both
Avro converters are checked to write the same bytes and read the same values.

    python benchmarks/avro_converter_speed.py                    # 20,000 records, 7 rounds
    python benchmarks/avro_converter_speed.py --records 5000 --rounds 3
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from kconnect.data.schema import Schema
from kconnect.data.struct import Struct
from kconnect_converters.json_converter import JsonConverter
from kconnect_schema_registry.avro.converter import AvroConverter
from kconnect_schema_registry.avro.format import AvroFormat, ParsedAvro
from struct_lines import NOTE, VALUE_SCHEMA

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from tests.schema_registry_server import ApicurioRegistry  # noqa: E402


class FastavroFormat(AvroFormat):
    """The Avro format on fastavro's path only: what AvroConverter did before the compiled codec."""

    def framed_encoder(
        self, schema: ParsedAvro, connect_schema: Schema | None, header: bytes
    ) -> Callable[[Any], bytes] | None:
        """None: every record through `encode`."""
        return None

    def encode(self, schema: ParsedAvro, connect_schema: Schema | None, value: Any) -> bytes:
        """fastavro's schemaless writer."""
        return self.encode_with_fastavro(schema, connect_schema, value)

    def decode(self, schema: ParsedAvro, connect_schema: Schema | None, payload: memoryview) -> Any:
        """fastavro's schemaless reader."""
        return self.decode_with_fastavro(schema, connect_schema, payload)


class FastavroAvroConverter(AvroConverter):
    """AvroConverter with `FastavroFormat`."""

    def new_format(self, parsed: Mapping[str, Any], is_key: bool) -> AvroFormat:
        """The fastavro-only format with the parsed AvroDataConfig keys."""
        return FastavroFormat(super().new_format(parsed, is_key).mapping.settings)


def row(i: int) -> Struct:
    """Row `i` as ``LineToStruct`` makes it from ``struct_lines.row_line(i)``."""
    return (
        Struct(VALUE_SCHEMA)
        .put("id", i)
        .put("name", f"name-{i}")
        .put("qty", i % 1000)
        .put("price", i * 0.5)
        .put("flag", i % 2 == 0)
        .put("note", NOTE)
    )


def per_record_us(run: Callable[[Any], object], items: list[Any]) -> float:
    """Microseconds per item of calling `run` on each of `items`, keeping no result (as a stream
    drops each record once sent, so the garbage collector does not walk a growing heap)."""
    start = time.perf_counter()
    for item in items:
        run(item)
    return (time.perf_counter() - start) / len(items) * 1e6


def main() -> None:
    """Start a registry, time the converters round by round, print the medians."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--records", type=int, default=20_000, help="records per round (default 20000)")
    parser.add_argument("--rounds", type=int, default=7, help="rounds; the median is shown (default 7)")
    args = parser.parse_args()
    values = [row(i) for i in range(args.records)]
    with ApicurioRegistry() as registry:
        json_converter = JsonConverter()
        json_converter.configure({"schemas.enable": "true"}, False)
        converters: dict[str, Any] = {"json": json_converter}
        for name, kind in (("avro", AvroConverter), ("avro-fastavro", FastavroAvroConverter)):
            converter = kind()
            converter.configure({"schema.registry.url": registry.url}, False)
            converters[name] = converter
        topic = "bench-avro-speed"
        encoded = {
            name: [c.from_connect_data(topic, VALUE_SCHEMA, v) for v in values]
            for name, c in converters.items()
        }
        assert encoded["avro"] == encoded["avro-fastavro"], "both Avro paths write the same bytes"
        read_back = [converters["avro"].to_connect_data(topic, b).value for b in encoded["avro"]]
        reference = [converters["avro-fastavro"].to_connect_data(topic, b).value for b in encoded["avro"]]
        assert read_back == reference, "both Avro paths read the same values"
        writes: dict[str, list[float]] = {name: [] for name in converters}
        reads: dict[str, list[float]] = {name: [] for name in converters}
        for _ in range(args.rounds):
            for name, c in converters.items():
                write, read, data = c.from_connect_data, c.to_connect_data, encoded[name]
                writes[name].append(per_record_us(lambda v, w=write: w(topic, VALUE_SCHEMA, v), values))
                reads[name].append(per_record_us(lambda b, r=read: r(topic, b), data))
        for c in converters.values():
            if isinstance(c, AvroConverter):
                c.close()
    print(f"{args.records} records x {args.rounds} rounds, median us per record (min-max)")
    print(f"{'converter':<14} {'bytes':>6} {'write us':>18} {'read us':>18}")
    for name in converters:
        size = sum(len(b or b"") for b in encoded[name]) / args.records
        w, r = writes[name], reads[name]
        print(
            f"{name:<14} {size:>6.0f} {statistics.median(w):>7.2f} ({min(w):.2f}-{max(w):.2f})"
            f" {statistics.median(r):>7.2f} ({min(r):.2f}-{max(r):.2f})"
        )


if __name__ == "__main__":
    main()
