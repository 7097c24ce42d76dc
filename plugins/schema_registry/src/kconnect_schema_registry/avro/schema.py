"""Avro schemas as Apache Avro's Java library holds them: parsed from JSON and written back as its text.

The registry gives a schema its id by its text, so the text kconnect registers must be the one
Confluent's converter registers: ``org.apache.avro.Schema.toString()``, compact JSON with Avro's
order of keys (``type``, ``name``, ``namespace``, ``doc``, the body, then the properties in the order
they were added), a named type written in full once and by name after that, names relative to the
enclosing namespace. `AvroSchema.text` writes that; `parse` reads any Avro schema JSON.

`fastavro_form` is the same schema for fastavro with the logical types left out: the converters
turn logical values into their primitives themselves, exactly as Connect's logical types do.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from kconnect.data.java_text import jackson_string, java_double_repr, java_float_repr
from kconnect.errors import DataError

PRIMITIVES = frozenset({"null", "boolean", "int", "long", "float", "double", "bytes", "string"})
_SCHEMA_RESERVED = frozenset(
    {"doc", "fields", "items", "name", "namespace", "size", "symbols", "values", "type", "aliases", "default"}
)
_FIELD_RESERVED = frozenset({"default", "doc", "name", "order", "type", "aliases"})


class NoDefault:
    """The marker of a field without a default (None is the JSON ``null`` default)."""

    def __repr__(self) -> str:
        return "NO_DEFAULT"


NO_DEFAULT = NoDefault()


class JavaFloat(float):
    """A float Jackson writes as a Java ``float`` (``Float.toString``): Connect's float32 defaults."""


@dataclass(eq=False)
class AvroSchema:
    """One Avro schema node; `type` is Avro's type name (``record``, ``union``, ``int``...)."""

    type: str
    props: dict[str, Any] = field(default_factory=dict)
    #: Named types: the full name (``namespace.name`` or ``name``).
    full_name: str | None = None
    doc: str | None = None
    fields: list[AvroField] = field(default_factory=list)
    symbols: list[str] = field(default_factory=list)
    enum_default: str | None = None
    size: int = 0
    #: ARRAY items, MAP values.
    element: AvroSchema | None = None
    #: UNION branches.
    branches: list[AvroSchema] = field(default_factory=list)

    @property
    def name(self) -> str:
        """The simple name of a named type (the part after the last dot)."""
        return (self.full_name or "").rpartition(".")[2]

    @property
    def namespace(self) -> str | None:
        """The namespace of a named type, None when it has none."""
        space = (self.full_name or "").rpartition(".")[0]
        return space or None

    @property
    def is_named(self) -> bool:
        """Whether this is a record, an enum or a fixed."""
        return self.type in ("record", "enum", "fixed")

    def add_prop(self, key: str, value: Any) -> None:
        """Avro's ``addProp``: a key keeps its first place; a different value for it is an error."""
        if key in self.props:
            if self.props[key] != value:
                raise DataError(f"Can't overwrite property: {key}")
            return
        self.props[key] = value

    def field_named(self, name: str) -> AvroField | None:
        """The record field called `name`, or None."""
        for f in self.fields:
            if f.name == name:
                return f
        return None

    def text(self) -> str:
        """The schema as Avro's ``Schema.toString()`` writes it (what Confluent registers)."""
        out: list[str] = []
        _write(self, _Names(), out)
        return "".join(out)

    def fastavro_form(self) -> Any:
        """The schema as fastavro takes it: full names, no logical types, each named type once."""
        return _fastavro(self, set())


@dataclass(eq=False)
class AvroField:
    """A record field: name, schema, doc, default (`NO_DEFAULT` when none) and properties."""

    name: str
    schema: AvroSchema
    doc: str | None = None
    default: Any = NO_DEFAULT
    order: str | None = None
    props: dict[str, Any] = field(default_factory=dict)


# --- writing Avro's text ---------------------------------------------------------------------------


class _Names:
    def __init__(self) -> None:
        self.defined: set[str] = set()
        self.space: str | None = None


def _string(text: str) -> str:
    # Avro's Schema.toString writes through a java.io.Writer: characters beyond U+FFFF stay raw.
    return jackson_string(text, surrogate_escapes=False)


def json_text(value: Any) -> str:
    """`value` (a JSON tree) as Jackson writes it compactly: Java number forms, insertion order."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, JavaFloat):
        return java_float_repr(value)
    if isinstance(value, float):
        return java_double_repr(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, dict):
        return "{" + ",".join(_string(str(k)) + ":" + json_text(v) for k, v in value.items()) + "}"
    if isinstance(value, list | tuple):
        return "[" + ",".join(json_text(v) for v in value) + "]"
    raise DataError(f"Cannot write {type(value).__name__} as JSON")


def _props(props: dict[str, Any]) -> str:
    return "".join("," + _string(k) + ":" + json_text(v) for k, v in props.items())


def _write_name(schema: AvroSchema, names: _Names, out: list[str]) -> None:
    out.append(',"name":' + _string(schema.name))
    space = schema.namespace
    if space is not None:
        if space != names.space:
            out.append(',"namespace":' + _string(space))
    elif names.space is not None:
        out.append(',"namespace":""')


def _write(schema: AvroSchema, names: _Names, out: list[str]) -> None:
    kind = schema.type
    if kind in PRIMITIVES:
        if not schema.props:
            out.append(_string(kind))
        else:
            out.append('{"type":' + _string(kind) + _props(schema.props) + "}")
        return
    if kind == "union":
        out.append("[")
        for i, branch in enumerate(schema.branches):
            if i:
                out.append(",")
            _write(branch, names, out)
        out.append("]")
        return
    if kind in ("array", "map"):
        assert schema.element is not None
        out.append('{"type":"' + kind + '","' + ("items" if kind == "array" else "values") + '":')
        _write(schema.element, names, out)
        out.append(_props(schema.props) + "}")
        return
    full = schema.full_name or ""
    if full in names.defined:
        # Avro 1.12 writes any later type of a known name as a reference, even a different one (two
        # maps with different non-string keys in one schema share MapEntry): so does kconnect.
        space = schema.namespace
        out.append(_string(schema.name if space is None or space == names.space else full))
        return
    names.defined.add(full)
    saved = names.space
    out.append('{"type":"' + kind + '"')
    _write_name(schema, names, out)
    if kind == "record":
        names.space = schema.namespace
    if schema.doc is not None:
        out.append(',"doc":' + _string(schema.doc))
    if kind == "record":
        out.append(',"fields":[')
        for i, f in enumerate(schema.fields):
            if i:
                out.append(",")
            out.append('{"name":' + _string(f.name) + ',"type":')
            _write(f.schema, names, out)
            if f.doc is not None:
                out.append(',"doc":' + _string(f.doc))
            if f.default is not NO_DEFAULT:
                out.append(',"default":' + json_text(f.default))
            if f.order is not None and f.order != "ascending":
                out.append(',"order":' + _string(f.order))
            out.append(_props(f.props) + "}")
        out.append("]")
    elif kind == "enum":
        out.append(',"symbols":' + json_text(schema.symbols))
        if schema.enum_default is not None:
            out.append(',"default":' + _string(schema.enum_default))
    else:
        out.append(',"size":' + str(schema.size))
    out.append(_props(schema.props) + "}")
    names.space = saved


# --- fastavro's form -------------------------------------------------------------------------------


def _fastavro(schema: AvroSchema, defined: set[str]) -> Any:
    kind = schema.type
    if kind in PRIMITIVES:
        return kind
    if kind == "union":
        return [_fastavro(b, defined) for b in schema.branches]
    if kind == "array":
        assert schema.element is not None
        return {"type": "array", "items": _fastavro(schema.element, defined)}
    if kind == "map":
        assert schema.element is not None
        return {"type": "map", "values": _fastavro(schema.element, defined)}
    full = schema.full_name or ""
    if full in defined:
        return full
    defined.add(full)
    if kind == "enum":
        return {"type": "enum", "name": full, "symbols": list(schema.symbols)}
    if kind == "fixed":
        return {"type": "fixed", "name": full, "size": schema.size}
    return {
        "type": "record",
        "name": full,
        "fields": [{"name": f.name, "type": _fastavro(f.schema, defined)} for f in schema.fields],
    }


# --- parsing ---------------------------------------------------------------------------------------


def parse(text: str, references: Sequence[str] = ()) -> AvroSchema:
    """An Avro schema from its JSON text, named references resolved as Avro's parser does; the
    `references` (texts of referenced schemas, dependencies first) define names it may use."""
    parser = _Parser()
    for source in (*references, text):
        try:
            tree = json.loads(source)
        except ValueError as e:
            raise DataError(f"Invalid Avro schema JSON: {e}") from e
        schema = parser.parse(tree, None)
    return schema


class _Parser:
    def __init__(self) -> None:
        self.named: dict[str, AvroSchema] = {}

    def _full_name(self, node: dict[str, Any], space: str | None) -> str:
        name = node.get("name")
        if not isinstance(name, str) or not name:
            raise DataError(f"No name in schema: {json.dumps(node)[:200]}")
        if "." in name:
            return name
        own = node.get("namespace", space)
        return f"{own}.{name}" if own else name

    def _reference(self, name: str, space: str | None) -> AvroSchema:
        if "." not in name and space and f"{space}.{name}" in self.named:
            return self.named[f"{space}.{name}"]
        if name in self.named:
            return self.named[name]
        raise DataError(f'Undefined name: "{name}"')

    def parse(self, node: Any, space: str | None) -> AvroSchema:
        if isinstance(node, str):
            return AvroSchema(node) if node in PRIMITIVES else self._reference(node, space)
        if isinstance(node, list):
            return AvroSchema("union", branches=[self.parse(b, space) for b in node])
        if not isinstance(node, dict):
            raise DataError(f"Schema not yet supported: {node!r}")
        kind = node.get("type")
        if isinstance(kind, list | dict):
            return self.parse(kind, space)
        if not isinstance(kind, str):
            raise DataError(f"No type: {json.dumps(node)[:200]}")
        props = {k: v for k, v in node.items() if k not in _SCHEMA_RESERVED}
        if kind in PRIMITIVES:
            return AvroSchema(kind, props)
        if kind == "array":
            return AvroSchema("array", props, element=self.parse(node.get("items"), space))
        if kind == "map":
            return AvroSchema("map", props, element=self.parse(node.get("values"), space))
        if kind not in ("record", "error", "enum", "fixed"):
            return self._reference(kind, space)
        full = self._full_name(node, space)
        schema = AvroSchema("record" if kind == "error" else kind, props, full_name=full, doc=node.get("doc"))
        self.named[full] = schema
        if kind == "enum":
            schema.symbols = [str(s) for s in node.get("symbols", [])]
            default = node.get("default")
            schema.enum_default = default if isinstance(default, str) else None
        elif kind == "fixed":
            schema.size = int(node.get("size", 0))
        else:
            inner = schema.namespace
            for f in node.get("fields", []):
                schema.fields.append(
                    AvroField(
                        name=str(f.get("name")),
                        schema=self.parse(f.get("type"), inner),
                        doc=f.get("doc"),
                        default=f.get("default", NO_DEFAULT) if "default" in f else NO_DEFAULT,
                        order=f.get("order"),
                        props={k: v for k, v in f.items() if k not in _FIELD_RESERVED},
                    )
                )
        return schema


def walk(schema: AvroSchema) -> Iterator[AvroSchema]:
    """Every node of `schema` once (named types are not entered twice)."""
    seen: set[int] = set()
    stack = [schema]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        yield node
        stack.extend(f.schema for f in node.fields)
        stack.extend(node.branches)
        if node.element is not None:
            stack.append(node.element)
