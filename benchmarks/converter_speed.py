"""JsonConverter's speed per record, one process, no Kafka and no Spark.

Times ``from_connect_data`` (Connect -> bytes) and ``to_connect_data`` (bytes -> Connect) over a
batch of distinct records, several rounds, and prints the best round's records per second:

- ``line``: a ~60-byte text line, STRING schema, ``schemas.enable=true`` (FileStreamSource's records)
- ``line-bare``: the same lines with ``schemas.enable=false``
- ``struct``: a Struct of 8 mixed fields (strings, ints, a double, a boolean, bytes, an optional
  null), ``schemas.enable=true``

    python benchmarks/converter_speed.py                   # 20,000 records, best of 5 rounds
    python benchmarks/converter_speed.py --records 5000 --rounds 3 --cases line

Prints a table and writes nothing.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import Any

from kconnect.data import (
    BOOLEAN_SCHEMA,
    BYTES_SCHEMA,
    FLOAT64_SCHEMA,
    INT32_SCHEMA,
    INT64_SCHEMA,
    OPTIONAL_STRING_SCHEMA,
    STRING_SCHEMA,
    Schema,
    SchemaBuilder,
    Struct,
)
from kconnect_converters.json_converter import JsonConverter

STRUCT_SCHEMA = (
    SchemaBuilder.struct()
    .name("bench.Order")
    .field("id", INT64_SCHEMA)
    .field("customer", STRING_SCHEMA)
    .field("quantity", INT32_SCHEMA)
    .field("price", FLOAT64_SCHEMA)
    .field("paid", BOOLEAN_SCHEMA)
    .field("note", OPTIONAL_STRING_SCHEMA)
    .field("sku", STRING_SCHEMA)
    .field("blob", BYTES_SCHEMA)
    .build()
)


def line(i: int) -> str:
    """A ~60-byte line of text, like one line of a log file."""
    return f"2024-05-01T12:00:{i % 60:02d}Z INFO worker-{i % 7} processed request #{i:08d}"


def order(i: int) -> Struct:
    """A Struct of STRUCT_SCHEMA with values that vary with `i`."""
    return (
        Struct(STRUCT_SCHEMA)
        .put("id", 1_000_000_000 + i)
        .put("customer", f"customer-{i % 97}")
        .put("quantity", i % 13)
        .put("price", 9.99 + (i % 100) / 4)
        .put("paid", i % 2 == 0)
        .put("note", None)
        .put("sku", f"SKU-{i:06d}")
        .put("blob", i.to_bytes(4, "big"))
    )


CASES: dict[str, tuple[bool, Schema, Callable[[int], Any]]] = {
    "line": (True, STRING_SCHEMA, line),
    "line-bare": (False, STRING_SCHEMA, line),
    "struct": (True, STRUCT_SCHEMA, order),
}


def best_rate(run: Callable[[], object], records: int, rounds: int) -> float:
    """Records per second of the fastest of `rounds` calls of `run` (each handles `records`)."""
    best = float("inf")
    for _ in range(rounds):
        start = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - start)
    return records / best


def measure(name: str, records: int, rounds: int) -> tuple[float, float, int]:
    """(write records/s, read records/s, bytes per record) for one case."""
    schemas_enable, schema, make = CASES[name]
    converter = JsonConverter()
    converter.configure({"schemas.enable": str(schemas_enable).lower()}, False)
    values = [make(i) for i in range(records)]
    write = converter.from_connect_data
    read = converter.to_connect_data
    encoded = [write("topic", schema, v) for v in values]
    write_rate = best_rate(lambda: [write("topic", schema, v) for v in values], records, rounds)
    read_rate = best_rate(lambda: [read("topic", b) for b in encoded], records, rounds)
    size = sum(len(b or b"") for b in encoded) // records
    return write_rate, read_rate, size


def main() -> None:
    """Parse the arguments, run each case and print its table row."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--records", type=int, default=20_000, help="records per round (default 20000)")
    parser.add_argument("--rounds", type=int, default=5, help="timed rounds; the best is kept (default 5)")
    parser.add_argument(
        "--cases", default=",".join(CASES), help=f"comma-separated, of {', '.join(CASES)} (default all)"
    )
    args = parser.parse_args()
    print(f"{'case':<10} {'bytes':>6} {'from_connect_data/s':>20} {'to_connect_data/s':>18}")
    for name in args.cases.split(","):
        write_rate, read_rate, size = measure(name, args.records, args.rounds)
        print(f"{name:<10} {size:>6} {write_rate:>20,.0f} {read_rate:>18,.0f}")


if __name__ == "__main__":
    main()
