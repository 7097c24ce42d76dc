"""A benchmark-only kconnect plugin: a transformation turning a CSV line into a Struct of 6 typed fields.

The file pipeline moves lines (strings); a registry-backed converter needs records with a schema.
``LineToStruct`` parses each line that `write_input` wrote (``id,name,qty,price,flag,note``) into a
Struct of ``id`` INT64, ``name`` STRING, ``qty`` INT32, ``price`` FLOAT64, ``flag`` BOOLEAN and
``note`` STRING, the same row shape as the JDBC benchmark. It runs on the source side, so the
source's value converter writes Structs and the sink's reads them back.

`install` writes this module, under the name `MODULE`, beside a ``.dist-info`` declaring its
``kconnect`` entry point (``tests/plugin_package.py``), so a worker started with that folder on
``PYTHONPATH`` finds it as it finds a pip-installed plugin.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar, TypeVar

from kconnect import ConfigDef, hookimpl
from kconnect.data.schema import Schema, SchemaBuilder
from kconnect.data.struct import Struct
from kconnect.plugin_host import PluginRegistry
from kconnect.records import ConnectRecord

#: The module name the plugin is installed under, and its distribution's name.
MODULE = "kconnect_bench_struct_lines"
#: The transformation's class name in connector configs (``transforms.x.type``).
TRANSFORM = "LineToStruct"
#: The text of every record's ``note`` field.
NOTE = "x" * 40

R = TypeVar("R", bound=ConnectRecord)

VALUE_SCHEMA: Schema = (
    SchemaBuilder.struct()
    .name("bench.Row")
    .field("id", SchemaBuilder.int64().build())
    .field("name", SchemaBuilder.string().build())
    .field("qty", SchemaBuilder.int32().build())
    .field("price", SchemaBuilder.float64().build())
    .field("flag", SchemaBuilder.bool().build())
    .field("note", SchemaBuilder.string().build())
    .build()
)


def row_line(i: int) -> str:
    """Input line `i` (with its newline): the CSV text of the row `LineToStruct` makes of it."""
    return f"{i},name-{i},{i % 1000},{i * 0.5},{int(i % 2 == 0)},{NOTE}\n"


def write_input(path: Path, count: int) -> None:
    """Write rows ``0 .. count - 1`` to `path`."""
    with path.open("w") as out:
        for chunk in range(0, count, 10_000):
            out.write("".join(row_line(i) for i in range(chunk, min(chunk + 10_000, count))))


class LineToStruct:
    """The record's value, a line of `write_input`, becomes a Struct of `VALUE_SCHEMA`."""

    config_def: ClassVar[ConfigDef | None] = ConfigDef()

    def configure(self, configs: Mapping[str, Any]) -> None:
        """No keys."""

    def apply(self, record: R) -> R | None:
        """The record with its value parsed into a Struct."""
        id_, name, qty, price, flag, note = str(record.value).split(",")
        value = (
            Struct(VALUE_SCHEMA)
            .put("id", int(id_))
            .put("name", name)
            .put("qty", int(qty))
            .put("price", float(price))
            .put("flag", flag == "1")
            .put("note", note)
        )
        return record.new_record(value_schema=VALUE_SCHEMA, value=value)  # type: ignore[no-any-return]

    def close(self) -> None:
        """Nothing to release."""


@hookimpl
def register_transforms(registry: PluginRegistry) -> None:
    """Register the transformation as `TRANSFORM`."""
    registry.add(LineToStruct, aliases=[TRANSFORM])


def install(where: Path) -> Path:
    """Install this module as `MODULE` under `where`, as pip would; returns `where` (for ``PYTHONPATH``)."""
    # Imported here: the installed copy runs in workers, where `tests` is not importable.
    from tests.plugin_package import write_plugin

    return write_plugin(where, MODULE, Path(__file__).read_text(encoding="utf-8"))
