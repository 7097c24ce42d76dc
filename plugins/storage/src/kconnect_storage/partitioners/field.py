"""Confluent's ``FieldPartitioner``: directories named by fields of the record's Struct value."""

from __future__ import annotations

from collections.abc import Sequence

from kconnect import SinkRecord, Struct
from kconnect.data.schema import Field, Type
from kconnect.errors import DataError

from kconnect_storage.partitioners.default import DefaultPartitioner
from kconnect_storage.partitioners.fields import describe_record, nested_field, nested_value

_INTEGER_TYPES = (Type.INT8, Type.INT16, Type.INT32, Type.INT64)


class FieldPartitioner(DefaultPartitioner):
    """``<field>=<value>`` for each of ``partition.field.name``, joined by ``directory.delim``.

    Values of INT8 to INT64, STRING and BOOLEAN fields only (Confluent's rule); a null value
    gives ``<field>=null``. Field names may name nested fields with dots (``address.city``).
    """

    def __init__(self, field_names: Sequence[str], directory_delim: str = "/") -> None:
        """Partition by `field_names`, in order."""
        super().__init__(directory_delim)
        self.field_names = tuple(field_names)

    def encode_partition(self, record: SinkRecord, now_ms: int) -> str:
        """The record's directory; DataError naming the field that cannot name one."""
        value = record.value
        if not isinstance(value, Struct):
            raise DataError(
                "Error encoding partition: FieldPartitioner needs a Struct value, got "
                f"{'null' if value is None else type(value).__name__} in {describe_record(record)}"
            )
        schema = record.value_schema or value.schema
        parts = []
        for name in self.field_names:
            field = nested_field(schema, name)
            if field is None:
                raise DataError(f"Field '{name}' is not present in the schema.")
            try:
                key = nested_value(value, name)
            except DataError:
                key = None  # Confluent logs the failure and names the directory "null"
            parts.append(f"{name}=null" if key is None else f"{name}={_encode(name, key, field)}")
        return self.directory_delim.join(parts)


def _encode(name: str, key: object, field: Field) -> str:
    schema_type = field.schema.type
    if schema_type in _INTEGER_TYPES and isinstance(key, int) and not isinstance(key, bool):
        return str(key)
    if schema_type is Type.STRING and isinstance(key, str):
        return key
    if schema_type is Type.BOOLEAN and isinstance(key, bool):
        return "true" if key else "false"
    shown = field.schema.name or str(schema_type)
    raise DataError(
        f"Error encoding partition: type {shown} of field '{name}' is not supported as a partition key."
    )
