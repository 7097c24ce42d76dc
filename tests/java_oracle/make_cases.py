"""Writes cases.json: the records, transformation and predicate cases, config validations and
config definitions the Java oracle (TransformOracle.java) and kconnect's unit tests both run.

    python tests/java_oracle/make_cases.py && bash tests/java_oracle/generate.sh
"""

import base64
import json
from pathlib import Path

T = "org.apache.kafka.connect.transforms."
P = "org.apache.kafka.connect.transforms.predicates."


def s(type_, optional=False, **kw):
    d = {"type": type_, "optional": optional}
    d.update(kw)
    return d


def logical(type_, name, opt, **kw):
    return s(type_, opt, name=f"org.apache.kafka.connect.data.{name}", version=1, **kw)


def TS(opt=True):
    return logical("int64", "Timestamp", opt)


def DATE(opt=True):
    return logical("int32", "Date", opt)


def TIME(opt=True):
    return logical("int32", "Time", opt)


def DEC(opt=True):
    return logical("bytes", "Decimal", opt, parameters={"scale": "2"})


def field(name, schema):
    d = dict(schema)
    d["field"] = name
    return d


NESTED = s(
    "struct", True, fields=[field("x", s("int32")), field("y", s("string", True))], name="com.example.Nested"
)
ORDER = s(
    "struct",
    False,
    name="com.example.Order",
    version=3,
    fields=[
        field("id", s("int32")),
        field("name", s("string", True)),
        field("price", s("double")),
        field("qty", s("int16")),
        field("small", s("int8")),
        field("big", s("int64")),
        field("ratio", s("float")),
        field("active", s("boolean")),
        field("data", s("bytes", True)),
        field("ts", TS()),
        field("day", DATE()),
        field("tod", TIME()),
        field("amount", DEC()),
        field("nested", NESTED),
        field("tags", s("array", True, items=s("string"))),
        field("attrs", s("map", True, keys=s("string"), values=s("int32"))),
        field("with_default", s("string", True, default="dflt")),
    ],
)
ORDER_PAYLOAD = {
    "id": 7,
    "name": "ada",
    "price": 9.5,
    "qty": 300,
    "small": -5,
    "big": 1234567890123,
    "ratio": 1.25,
    "active": True,
    "data": base64.b64encode(b"\x01\x02\x03").decode(),
    "ts": 1700000000123,
    "day": 19675,
    "tod": 3723004,
    "amount": base64.b64encode((12345).to_bytes(2, "big")).decode(),
    "nested": {"x": 1, "y": "two"},
    "tags": ["a", "b"],
    "attrs": {"a": 1},
    "with_default": None,
}
MAP = {
    "id": 7,
    "name": "ada",
    "price": 9.5,
    "active": True,
    "tags": ["a", "b"],
    "nested": {"x": 1, "y": "two"},
    "gone": None,
}
KEY_STRUCT = s("struct", False, fields=[field("id", s("int32")), field("region", s("string"))])
TS_STRUCT = s(
    "struct",
    False,
    fields=[
        field("when", s("string", True)),
        field("epoch", s("int64", True)),
        field("ts", TS()),
        field("d", DATE()),
        field("t", TIME()),
        field("other", s("int32", True)),
    ],
)
FLAT = s(
    "struct",
    False,
    name="com.example.Deep",
    fields=[
        field("a", s("int32")),
        field(
            "inner",
            s(
                "struct",
                True,
                fields=[
                    field("b", s("string", True)),
                    field("c", s("struct", False, fields=[field("d", s("boolean"))])),
                ],
            ),
        ),
        field("list", s("array", True, items=s("int32"))),
    ],
)


def env(schema, payload):
    return {"schema": schema, "payload": payload}


def H(k, v, sch=None):
    return [k, env(sch if sch is not None else s("string"), v)]


records = {
    "map_value": {
        "kind": "sink",
        "topic": "orders",
        "partition": 3,
        "offset": 42,
        "timestamp": 1700000000123,
        "key": None,
        "value": env(None, MAP),
        "headers": [H("h1", "v1")],
    },
    "struct_value": {
        "kind": "sink",
        "topic": "orders",
        "partition": 1,
        "offset": 5,
        "timestamp": 1700000000123,
        "key": env(s("string"), "k1"),
        "value": env(ORDER, ORDER_PAYLOAD),
        "headers": [H("h1", "v1"), H("h2", "v2"), H("h1", "v1b")],
    },
    "struct_key": {
        "kind": "sink",
        "topic": "orders",
        "partition": 0,
        "offset": 9,
        "timestamp": 86400000,
        "key": env(KEY_STRUCT, {"id": 1, "region": "eu"}),
        "value": env(s("string"), "hello"),
    },
    "map_key": {
        "kind": "source",
        "topic": "orders",
        "partition": 2,
        "timestamp": 1700000000123,
        "key": env(None, {"id": 1, "region": "eu"}),
        "value": env(None, {"id": 1, "n": 2}),
    },
    "tombstone": {
        "kind": "sink",
        "topic": "orders",
        "partition": 0,
        "offset": 1,
        "timestamp": 1700000000123,
        "key": env(s("string"), "k"),
        "value": None,
    },
    "tombstone_struct": {
        "kind": "sink",
        "topic": "orders",
        "partition": 0,
        "offset": 1,
        "timestamp": 1700000000123,
        "key": env(s("string"), "k"),
        "value": env(dict(ORDER, optional=True), None),
    },
    "source_map": {
        "kind": "source",
        "topic": "src.events",
        "partition": None,
        "timestamp": None,
        "key": env(s("string"), "s1"),
        "value": env(None, {"id": 1}),
    },
    "source_struct": {
        "kind": "source",
        "topic": "src.events",
        "partition": 4,
        "timestamp": 1700000000123,
        "key": None,
        "value": env(ORDER, ORDER_PAYLOAD),
    },
    "string_value": {
        "kind": "sink",
        "topic": "logs-2023",
        "partition": 0,
        "offset": 3,
        "timestamp": 0,
        "key": env(None, "abc"),
        "value": env(s("string"), "42"),
    },
    "long_value": {
        "kind": "sink",
        "topic": "metrics",
        "partition": 0,
        "offset": 3,
        "timestamp": 1700000000123,
        "key": env(s("int64"), 5),
        "value": env(s("int64"), 1700000000123),
    },
    "casts_map": {
        "kind": "sink",
        "topic": "c",
        "partition": 0,
        "offset": 0,
        "timestamp": 1,
        "value": env(
            None,
            {
                "i": 300,
                "f": 1.75,
                "s": "123",
                "b": True,
                "neg": -129,
                "big": 5000000000,
                "sf": "2.5",
                "bad": "x1",
                "lst": [1],
                "nul": None,
                "txt": "TRUE",
            },
        ),
    },
    "ts_map": {
        "kind": "sink",
        "topic": "t",
        "partition": 0,
        "offset": 0,
        "timestamp": 1,
        "value": env(None, {"when": "2023-11-14 22:13:20.123", "epoch": 1700000000123, "sec": 1700000000}),
    },
    "ts_struct": {
        "kind": "sink",
        "topic": "t",
        "partition": 0,
        "offset": 0,
        "timestamp": 1,
        "value": env(
            TS_STRUCT,
            {
                "when": "2023-11-14 22:13:20.123",
                "epoch": 1700000000123,
                "ts": 1700000000123,
                "d": 19675,
                "t": 3723004,
                "other": 5,
            },
        ),
    },
    "ts_string_value": {
        "kind": "sink",
        "topic": "t",
        "partition": 0,
        "offset": 0,
        "timestamp": 1,
        "value": env(s("string"), "2023-11-14 22:13:20.123"),
    },
    "ts_logical_value": {
        "kind": "sink",
        "topic": "t",
        "partition": 0,
        "offset": 0,
        "timestamp": 1,
        "value": env(TS(False), 1700000000123),
    },
    "deep_struct": {
        "kind": "sink",
        "topic": "d",
        "partition": 0,
        "offset": 0,
        "timestamp": 1,
        "value": env(FLAT, {"a": 1, "inner": {"b": "bee", "c": {"d": True}}, "list": [1, 2]}),
    },
    "deep_struct_null_inner": {
        "kind": "sink",
        "topic": "d",
        "partition": 0,
        "offset": 0,
        "timestamp": 1,
        "value": env(FLAT, {"a": 2, "inner": None, "list": None}),
    },
    "deep_map": {
        "kind": "sink",
        "topic": "d",
        "partition": 0,
        "offset": 0,
        "timestamp": 1,
        "value": env(None, {"a": 1, "inner": {"b": "bee", "c": {"d": True}, "n": None}, "list": [1, 2]}),
    },
    "dotted_map": {
        "kind": "sink",
        "topic": "d",
        "partition": 0,
        "offset": 0,
        "timestamp": 1,
        "value": env(None, {"a.b": {"c": 5}, "a": {"b": {"c": 6}}}),
    },
    "headers_many": {
        "kind": "sink",
        "topic": "h",
        "partition": 0,
        "offset": 0,
        "timestamp": 1,
        "value": env(None, {"x": 1}),
        "headers": [H("a", "1"), H("b", "2"), H("a", "3"), H("c", 4, s("int32"))],
    },
    "no_ts": {
        "kind": "sink",
        "topic": "orders",
        "partition": 0,
        "offset": 0,
        "timestamp": None,
        "value": env(None, {"x": 1}),
    },
}

ALL = [
    "map_value",
    "struct_value",
    "struct_key",
    "map_key",
    "tombstone",
    "tombstone_struct",
    "source_map",
    "source_struct",
    "string_value",
]
transforms = []


def t(id_, type_, config, recs=ALL):
    transforms.append({"id": id_, "type": type_, "config": config, "records": recs})


# InsertField
t(
    "insertfield-value-all",
    T + "InsertField$Value",
    {
        "topic.field": "t",
        "partition.field": "p!",
        "offset.field": "o?",
        "timestamp.field": "ts",
        "static.field": "s",
        "static.value": "v",
    },
)
t(
    "insertfield-value-required",
    T + "InsertField$Value",
    {"topic.field": "t!", "timestamp.field": "ts!", "static.field": "s!", "static.value": "v"},
)
t(
    "insertfield-value-nooffset",
    T + "InsertField$Value",
    {"topic.field": "t", "partition.field": "p", "timestamp.field": "ts"},
)
t("insertfield-key", T + "InsertField$Key", {"topic.field": "t", "static.field": "s", "static.value": "v"})
t(
    "insertfield-value-nodefault",
    T + "InsertField$Value",
    {"topic.field": "t", "replace.null.with.default": "false"},
)
# ReplaceField
t(
    "replacefield-value-exclude",
    T + "ReplaceField$Value",
    {"exclude": "price,nested,data", "renames": "id:ident,name:nm"},
)
t(
    "replacefield-value-include",
    T + "ReplaceField$Value",
    {"include": "id,name,with_default,missing", "exclude": "name"},
)
t(
    "replacefield-value-nodefault",
    T + "ReplaceField$Value",
    {"include": "id,with_default", "replace.null.with.default": "false"},
)
t("replacefield-key", T + "ReplaceField$Key", {"renames": "region:r", "exclude": "id"})
t("replacefield-value-renames-trailing", T + "ReplaceField$Value", {"renames": "id:x:", "include": "id,x"})
# ExtractField
t("extractfield-value-name", T + "ExtractField$Value", {"field": "name"})
t("extractfield-value-nested-v1", T + "ExtractField$Value", {"field": "nested"})
t("extractfield-value-missing", T + "ExtractField$Value", {"field": "missing"})
t("extractfield-value-default", T + "ExtractField$Value", {"field": "with_default"})
t(
    "extractfield-value-nodefault",
    T + "ExtractField$Value",
    {"field": "with_default", "replace.null.with.default": "false"},
)
t("extractfield-key", T + "ExtractField$Key", {"field": "id"})
t(
    "extractfield-value-v2",
    T + "ExtractField$Value",
    {"field": "nested.y", "field.syntax.version": "v2"},
    [*ALL, "dotted_map", "deep_struct", "deep_struct_null_inner"],
)
t(
    "extractfield-value-v2-backtick",
    T + "ExtractField$Value",
    {"field": "`a.b`.c", "field.syntax.version": "V2"},
    ["dotted_map"],
)
t(
    "extractfield-value-v2-plain",
    T + "ExtractField$Value",
    {"field": "a.b.c", "field.syntax.version": "V2"},
    ["dotted_map"],
)
t(
    "extractfield-value-v2-deep",
    T + "ExtractField$Value",
    {"field": "inner.c.d", "field.syntax.version": "V2"},
    ["deep_struct", "deep_struct_null_inner", "deep_map"],
)
t("extractfield-value-v1-dotted", T + "ExtractField$Value", {"field": "a.b"}, ["dotted_map"])
t("valuetokey-dup-fields", T + "ValueToKey", {"fields": "id,id"}, ["map_value", "struct_value"])
t("maskfield-dup-fields", T + "MaskField$Value", {"fields": "id,id"}, ["map_value", "struct_value"])
t(
    "replacefield-dup-exclude",
    T + "ReplaceField$Value",
    {"exclude": "price,price"},
    ["map_value", "struct_value"],
)
t("dropheaders-dup", T + "DropHeaders", {"headers": "a,a"}, ["headers_many"])
t("regexrouter-group10", T + "RegexRouter", {"regex": "(o)rders", "replacement": "$10-$1"}, ["map_value"])
# HoistField
t("hoistfield-value", T + "HoistField$Value", {"field": "wrapped"})
t("hoistfield-key", T + "HoistField$Key", {"field": "k"})
# ValueToKey
t("valuetokey", T + "ValueToKey", {"fields": "id,name"})
t("valuetokey-default", T + "ValueToKey", {"fields": "with_default,id"})
t("valuetokey-nodefault", T + "ValueToKey", {"fields": "with_default", "replace.null.with.default": "false"})
t("valuetokey-missing", T + "ValueToKey", {"fields": "id,nope"})
# MaskField
t(
    "maskfield-value-null",
    T + "MaskField$Value",
    {"fields": "id,name,price,qty,small,big,ratio,active,ts,day,tod,tags,attrs,with_default,missing"},
)
t("maskfield-value-bytes", T + "MaskField$Value", {"fields": "data"})
t("maskfield-value-nested", T + "MaskField$Value", {"fields": "nested"})
t(
    "maskfield-value-replacement",
    T + "MaskField$Value",
    {"fields": "id,name,price,qty,small,big,ratio", "replacement": "99"},
)
t("maskfield-value-replacement-wrap", T + "MaskField$Value", {"fields": "small,qty", "replacement": "1000"})
t("maskfield-value-replacement-text", T + "MaskField$Value", {"fields": "name", "replacement": "***"})
t("maskfield-value-replacement-text-number", T + "MaskField$Value", {"fields": "id", "replacement": "***"})
t(
    "maskfield-value-replacement-float",
    T + "MaskField$Value",
    {"fields": "id,price,ratio", "replacement": "2.5"},
)
t("maskfield-value-replacement-bool", T + "MaskField$Value", {"fields": "active", "replacement": "true"})
t("maskfield-key", T + "MaskField$Key", {"fields": "region"})
# Cast
t(
    "cast-value-fields",
    T + "Cast$Value",
    {"spec": "id:string,price:int32,qty:int8,small:float32,big:int16,ratio:float64,active:int32,name:string"},
    [*ALL, "casts_map"],
)
t("cast-value-booleans", T + "Cast$Value", {"spec": "id:boolean,price:boolean,active:boolean,name:boolean"})
t("cast-value-bytes", T + "Cast$Value", {"spec": "data:string"})
t("cast-value-bytes-int", T + "Cast$Value", {"spec": "data:int32"})
t("cast-value-logical", T + "Cast$Value", {"spec": "ts:int64,day:int32,tod:int32,amount:float64"})
t("cast-value-logical-string", T + "Cast$Value", {"spec": "ts:string,day:string,tod:string,amount:string"})
t("cast-value-struct", T + "Cast$Value", {"spec": "nested:string"})
t("cast-value-default", T + "Cast$Value", {"spec": "with_default:string"})
t(
    "cast-map",
    T + "Cast$Value",
    {"spec": "i:int8,f:int32,s:int16,b:float64,neg:int8,big:int32,sf:float32,txt:boolean,nul:int32"},
    ["casts_map"],
)
t("cast-map-bad", T + "Cast$Value", {"spec": "bad:int32"}, ["casts_map"])
t("cast-map-list", T + "Cast$Value", {"spec": "lst:string"}, ["casts_map"])
t("cast-map-string-float", T + "Cast$Value", {"spec": "sf:int32"}, ["casts_map"])
t(
    "cast-whole-value",
    T + "Cast$Value",
    {"spec": "int32"},
    ["string_value", "long_value", "map_value", "tombstone", "struct_key"],
)
t(
    "cast-whole-value-string",
    T + "Cast$Value",
    {"spec": "string"},
    ["string_value", "long_value", "ts_logical_value"],
)
t("cast-whole-key", T + "Cast$Key", {"spec": "float64"}, ["long_value", "string_value"])
t("cast-key-fields", T + "Cast$Key", {"spec": "id:string"}, ["struct_key", "map_key"])
# RegexRouter
t("regexrouter", T + "RegexRouter", {"regex": "(.*)s", "replacement": "$1_x"})
t("regexrouter-nomatch", T + "RegexRouter", {"regex": "order", "replacement": "x"}, ["map_value"])
t(
    "regexrouter-groups",
    T + "RegexRouter",
    {"regex": "([a-z]+)-(\\d+)", "replacement": "$2.$1.\\$"},
    ["string_value", "map_value"],
)
t(
    "regexrouter-named",
    T + "RegexRouter",
    {"regex": "(?<name>[a-z]+)\\.(.*)", "replacement": "${name}_$2"},
    ["source_map", "map_value"],
)
# TimestampRouter
t("timestamprouter-default", T + "TimestampRouter", {}, ["map_value", "struct_key", "string_value", "no_ts"])
t(
    "timestamprouter-format",
    T + "TimestampRouter",
    {
        "topic.format": "${timestamp}_${topic}_${topic}",
        "timestamp.format": "yyyy-MM-dd'T'HH:mm:ss.SSS 'q''' EEE MMM a hh k",
    },
    ["map_value", "struct_key", "string_value"],
)
for n, pattern in enumerate(
    ["yyyy.MM.dd.HH", "EEEE d MMMM yy", "D-F-u-k-K-h-H", "hh:mm a z Z X", "G yyy y", "S SS SSSS"]
):
    t(
        f"timestamprouter-pattern-{n}",
        T + "TimestampRouter",
        {"topic.format": "${timestamp}", "timestamp.format": pattern},
        ["map_value", "struct_key", "string_value"],
    )
t("timestamprouter-badpattern", T + "TimestampRouter", {"timestamp.format": "yyyy-bb"}, ["map_value"])
# Filter
t("filter", T + "Filter", {}, ["map_value", "tombstone"])
# DropHeaders, InsertHeader, HeaderFrom
t("dropheaders", T + "DropHeaders", {"headers": "a,c,zzz"}, ["headers_many", "map_value"])
t(
    "insertheader-string",
    T + "InsertHeader",
    {"header": "added", "value.literal": "hello world"},
    ["headers_many"],
)
t("insertheader-number", T + "InsertHeader", {"header": "n", "value.literal": "42"}, ["headers_many"])
t("insertheader-bool", T + "InsertHeader", {"header": "b", "value.literal": "true"}, ["map_value"])
t("insertheader-list", T + "InsertHeader", {"header": "l", "value.literal": "[1, 2, 3]"}, ["map_value"])
t("insertheader-map", T + "InsertHeader", {"header": "m", "value.literal": '{"a": 1}'}, ["map_value"])
t("insertheader-float", T + "InsertHeader", {"header": "f", "value.literal": "1.5"}, ["map_value"])
t(
    "headerfrom-value-copy",
    T + "HeaderFrom$Value",
    {"fields": "id,name,with_default", "headers": "hid,hname,hd", "operation": "copy"},
    ["struct_value", "map_value", "tombstone", "string_value"],
)
t(
    "headerfrom-value-move",
    T + "HeaderFrom$Value",
    {"fields": "id,nested", "headers": "hid,hn", "operation": "move"},
    ["struct_value", "map_value"],
)
t(
    "headerfrom-value-nodefault",
    T + "HeaderFrom$Value",
    {"fields": "with_default", "headers": "hd", "operation": "copy", "replace.null.with.default": "false"},
    ["struct_value"],
)
t(
    "headerfrom-key-move",
    T + "HeaderFrom$Key",
    {"fields": "region", "headers": "r", "operation": "move"},
    ["struct_key", "map_key"],
)
# SetSchemaMetadata
t(
    "setschemametadata-value",
    T + "SetSchemaMetadata$Value",
    {"schema.name": "com.example.Renamed", "schema.version": "9"},
    ["struct_value", "string_value", "map_value", "tombstone_struct"],
)
t(
    "setschemametadata-value-version",
    T + "SetSchemaMetadata$Value",
    {"schema.version": "2"},
    ["struct_value", "long_value"],
)
t("setschemametadata-key", T + "SetSchemaMetadata$Key", {"schema.name": "k"}, ["struct_key", "struct_value"])
# Flatten
# Keys that flatten to one name ("a.b" and "a" -> "b") keep whichever Java's HashMap visits last.
t(
    "flatten-value",
    T + "Flatten$Value",
    {},
    [
        "deep_struct",
        "deep_struct_null_inner",
        "deep_map",
        "map_value",
        "tombstone",
        "tombstone_struct",
        "string_value",
    ],
)
t("flatten-value-delim", T + "Flatten$Value", {"delimiter": "_"}, ["deep_struct", "deep_map"])
t("flatten-value-order", T + "Flatten$Value", {}, ["struct_value"])
t("flatten-key", T + "Flatten$Key", {}, ["struct_key", "map_key"])
# TimestampConverter
F = "yyyy-MM-dd HH:mm:ss.SSS"
for target in ("string", "unix", "Date", "Time", "Timestamp"):
    cfg = {"target.type": target, "format": F}
    # Schemaless results of Date, Time or Timestamp have no JSON form (Java's JsonConverter refuses them too).
    both = ["ts_map", "ts_struct"] if target in ("string", "unix") else ["ts_struct"]
    t(f"tsconv-field-when-{target}", T + "TimestampConverter$Value", dict(cfg, field="when"), both)
    t(f"tsconv-field-epoch-{target}", T + "TimestampConverter$Value", dict(cfg, field="epoch"), both)
    t(f"tsconv-field-ts-{target}", T + "TimestampConverter$Value", dict(cfg, field="ts"), ["ts_struct"])
    t(f"tsconv-field-d-{target}", T + "TimestampConverter$Value", dict(cfg, field="d"), ["ts_struct"])
    t(f"tsconv-field-t-{target}", T + "TimestampConverter$Value", dict(cfg, field="t"), ["ts_struct"])
    t(
        f"tsconv-whole-{target}",
        T + "TimestampConverter$Value",
        cfg,
        ["ts_string_value", "ts_logical_value", "long_value", "tombstone"],
    )
for precision in ("seconds", "microseconds", "nanoseconds"):
    t(
        f"tsconv-unix-{precision}",
        T + "TimestampConverter$Value",
        {"target.type": "unix", "unix.precision": precision, "field": "ts"},
        ["ts_struct"],
    )
    t(
        f"tsconv-from-unix-{precision}",
        T + "TimestampConverter$Value",
        {
            "target.type": "string",
            "format": "yyyy-MM-dd HH:mm:ss.SSS",
            "unix.precision": precision,
            "field": "sec",
        },
        ["ts_map"],
    )
t("tsconv-bad-type", T + "TimestampConverter$Value", {"target.type": "unix", "field": "other"}, ["ts_struct"])
t(
    "tsconv-bad-text",
    T + "TimestampConverter$Value",
    {"target.type": "unix", "field": "name", "format": F},
    ["map_value"],
)
t("tsconv-key", T + "TimestampConverter$Key", {"target.type": "Timestamp"}, ["long_value"])
t(
    "tsconv-format-iso",
    T + "TimestampConverter$Value",
    {"target.type": "string", "format": "yyyy-MM-dd'T'HH:mm:ssXXX", "field": "epoch"},
    ["ts_map"],
)
t(
    "tsconv-parse-variants",
    T + "TimestampConverter$Value",
    {"target.type": "unix", "format": "dd MMM yyyy hh:mm a", "field": "when"},
    ["ts_text_a", "ts_text_b"],
)
records["ts_text_a"] = {
    "kind": "sink",
    "topic": "t",
    "partition": 0,
    "offset": 0,
    "timestamp": 1,
    "value": env(None, {"when": "14 Nov 2023 10:13 PM"}),
}
records["ts_text_b"] = {
    "kind": "sink",
    "topic": "t",
    "partition": 0,
    "offset": 0,
    "timestamp": 1,
    "value": env(None, {"when": "01 Jan 1970 12:00 AM trailing"}),
}
t(
    "tsconv-parse-compact",
    T + "TimestampConverter$Value",
    {"target.type": "unix", "format": "yyyyMMddHHmm", "field": "when"},
    ["ts_compact"],
)
records["ts_compact"] = {
    "kind": "sink",
    "topic": "t",
    "partition": 0,
    "offset": 0,
    "timestamp": 1,
    "value": env(None, {"when": "202311142213"}),
}

# --- edge cases -------------------------------------------------------------------------------------
records["numbers_map"] = {
    "kind": "sink",
    "topic": "n",
    "partition": 0,
    "offset": 0,
    "timestamp": -86400001,
    "value": env(
        None,
        {
            "huge": 1e20,
            "neg": -2.7,
            "tiny": 1e-5,
            "plus": "+5",
            "space": " 5",
            "exp": "1e3",
            "hex": "0x10",
            "fl": "1.5f",
            "inf": "Infinity",
            "minlong": -9223372036854775808,
            "bigint": 3000000000,
            "zero": 0,
            "t": "yes",
            "T": "True",
        },
    ),
}
NUMS = s(
    "struct",
    False,
    fields=[
        field("i8", s("int8")),
        field("i16", s("int16")),
        field("i32", s("int32")),
        field("i64", s("int64")),
        field("f32", s("float")),
        field("f64", s("double")),
        field("b", s("boolean")),
        field("opt", s("int32", True, default=42)),
        field("str", s("string", True)),
    ],
)
records["numbers_struct"] = {
    "kind": "sink",
    "topic": "n",
    "partition": 0,
    "offset": 0,
    "timestamp": 1,
    "value": env(
        NUMS,
        {
            "i8": -128,
            "i16": -32768,
            "i32": 2147483647,
            "i64": -9223372036854775808,
            "f32": 3.4028235e38,
            "f64": -1.7976931348623157e308,
            "b": False,
            "opt": None,
            "str": "-7",
        },
    ),
}
for target in ("int8", "int16", "int32", "int64", "float32", "float64", "boolean", "string"):
    t(
        f"cast-numbers-map-{target}",
        T + "Cast$Value",
        {"spec": ",".join(f"{k}:{target}" for k in ["huge", "neg", "tiny", "minlong", "bigint", "zero"])},
        ["numbers_map"],
    )
    t(
        f"cast-numbers-struct-{target}",
        T + "Cast$Value",
        {
            "spec": ",".join(
                f"{k}:{target}" for k in ["i8", "i16", "i32", "i64", "f32", "f64", "b", "opt", "str"]
            )
        },
        ["numbers_struct"],
    )
for key in ["plus", "space", "exp", "hex", "fl", "inf", "t", "T"]:
    for target in ("int32", "float32", "float64", "boolean"):
        t(f"cast-text-{key}-{target}", T + "Cast$Value", {"spec": f"{key}:{target}"}, ["numbers_map"])
for repl in ["1.5", "-3", "1e3", "300", "abc def", "true"]:
    t(
        f"maskfield-numbers-{repl}",
        T + "MaskField$Value",
        {"fields": "i8,i16,i32,i64,f32,f64,str", "replacement": repl},
        ["numbers_struct"],
    )
    t(
        f"maskfield-numbers-map-{repl}",
        T + "MaskField$Value",
        {"fields": "zero,neg", "replacement": repl},
        ["numbers_map"],
    )
t(
    "maskfield-numbers-null",
    T + "MaskField$Value",
    {"fields": "i8,i16,i32,i64,f32,f64,b,opt,str"},
    ["numbers_struct"],
)
t(
    "maskfield-opt-nodefault",
    T + "MaskField$Value",
    {"fields": "opt", "replace.null.with.default": "false"},
    ["numbers_struct"],
)
t(
    "cast-opt-nodefault",
    T + "Cast$Value",
    {"spec": "opt:string", "replace.null.with.default": "false"},
    ["numbers_struct"],
)
t("tsconv-negative", T + "TimestampRouter", {"timestamp.format": "yyyy-MM-dd HH:mm:ss.SSS"}, ["numbers_map"])
t("tsconv-negative-date", T + "Cast$Value", {"spec": "ts:string,day:string,tod:string"}, ["neg_dates"])
records["neg_dates"] = {
    "kind": "sink",
    "topic": "n",
    "partition": 0,
    "offset": 0,
    "timestamp": 1,
    "value": env(
        s("struct", False, fields=[field("ts", TS()), field("day", DATE()), field("tod", TIME())]),
        {"ts": -1, "day": -1, "tod": 0},
    ),
}
records["backticks"] = {
    "kind": "sink",
    "topic": "b",
    "partition": 0,
    "offset": 0,
    "timestamp": 1,
    "value": env(None, {"a`b": {"c": 1}, "x.y": {"z": {"w": 2}}, "": {"e": 3}, "q": {"": 4}, "`": 5}),
}
for n, path in enumerate(["`a`b`.c", "`x.y`.z.w", "`x.y`.`z`.w", ".e", "q.", "`", "a\\`b.c", "`x.y`", "``"]):
    t(
        f"extractfield-v2-path-{n}",
        T + "ExtractField$Value",
        {"field": path, "field.syntax.version": "V2"},
        ["backticks"],
    )
t(
    "headerfrom-missing-field",
    T + "HeaderFrom$Value",
    {"fields": "nope", "headers": "h", "operation": "copy"},
    ["map_value"],
)
t("hoistfield-null-schema", T + "HoistField$Value", {"field": "f"}, ["tombstone_struct", "tombstone"])
# Struct-valued defaults are left out: Java's JsonConverter cannot read them from an envelope.
DEFAULTS = s(
    "struct",
    True,
    name="com.example.Outer",
    fields=[
        field("a", s("int32", True, default=1)),
        field(
            "inner",
            s(
                "struct",
                True,
                fields=[field("b", s("string", True, default="bee")), field("c", s("int64", True))],
            ),
        ),
    ],
)
records["defaults_struct"] = {
    "kind": "sink",
    "topic": "d",
    "partition": 0,
    "offset": 0,
    "timestamp": 1,
    "value": env(DEFAULTS, {"a": None, "inner": None}),
}
records["defaults_struct_set"] = {
    "kind": "sink",
    "topic": "d",
    "partition": 0,
    "offset": 0,
    "timestamp": 1,
    "value": env(DEFAULTS, {"a": 3, "inner": {"b": None, "c": 8}}),
}
t("flatten-defaults", T + "Flatten$Value", {}, ["defaults_struct", "defaults_struct_set"])
t(
    "insertfield-defaults",
    T + "InsertField$Value",
    {"static.field": "s", "static.value": "v"},
    ["defaults_struct", "defaults_struct_set"],
)
t(
    "replacefield-defaults",
    T + "ReplaceField$Value",
    {"renames": "a:aa"},
    ["defaults_struct", "defaults_struct_set"],
)
t(
    "setschemametadata-defaults",
    T + "SetSchemaMetadata$Value",
    {"schema.name": "x"},
    ["defaults_struct", "defaults_struct_set"],
)
t(
    "tsconv-defaults",
    T + "TimestampConverter$Value",
    {"field": "a", "target.type": "Timestamp"},
    ["defaults_struct"],
)
ARR = s("array", True, items=s("int32"), name="com.example.Arr")
records["array_value"] = {
    "kind": "sink",
    "topic": "a",
    "partition": 0,
    "offset": 0,
    "timestamp": 1,
    "value": env(ARR, [1, 2]),
}
t(
    "setschemametadata-array",
    T + "SetSchemaMetadata$Value",
    {"schema.name": "y", "schema.version": "4"},
    ["array_value"],
)
t("cast-array-whole", T + "Cast$Value", {"spec": "string"}, ["array_value"])
t("hoistfield-array", T + "HoistField$Value", {"field": "f"}, ["array_value"])
t("flatten-array", T + "Flatten$Value", {}, ["array_value"])
t("regexrouter-dollar-end", T + "RegexRouter", {"regex": "(.*)", "replacement": "x$"}, ["map_value"])
t("regexrouter-missing-group", T + "RegexRouter", {"regex": "(.*)", "replacement": "$2"}, ["map_value"])
t("regexrouter-partial-first", T + "RegexRouter", {"regex": "o|orders", "replacement": "X"}, ["map_value"])
t("insertheader-date", T + "InsertHeader", {"header": "d", "value.literal": "2023-11-14"}, ["map_value"])
t("insertheader-quoted", T + "InsertHeader", {"header": "q", "value.literal": '"quoted"'}, ["map_value"])
t("insertheader-empty", T + "InsertHeader", {"header": "e", "value.literal": ""}, ["map_value"])

for stamp in (1704067200000, 1703980800000, 1735603200000, 1609459200000):
    records[f"stamp_{stamp}"] = {
        "kind": "sink",
        "topic": "w",
        "partition": 0,
        "offset": 0,
        "timestamp": stamp,
        "value": None,
    }
t(
    "timestamprouter-weeks",
    T + "TimestampRouter",
    {"topic.format": "${timestamp}", "timestamp.format": "w W Y F D E u"},
    ["map_value", "struct_key", "string_value", "numbers_map"]
    + [f"stamp_{x}" for x in (1704067200000, 1703980800000, 1735603200000, 1609459200000)],
)

PARSES = [
    ("yyyy-MM-dd'T'HH:mm:ss.SSSXXX", "2023-11-14T22:13:20.123+02:00"),
    ("yyyy-MM-dd'T'HH:mm:ss.SSSZ", "2023-11-14T22:13:20.123-0130"),
    ("EEE, dd MMM yyyy HH:mm:ss z", "Tue, 14 Nov 2023 22:13:20 UTC"),
    ("dd/MM/yy", "14/11/23"),
    ("yyyy-MM-dd", "2023-02-30"),
    ("HH:mm", "25:61"),
    ("yyyy-MM-dd HH:mm:ss.SSS", "not a date"),
    ("yyyyMMdd", "20231114"),
    ("yyyy-MM-dd'T'HH:mm:ssX", "2023-11-14T22:13:20Z"),
]
for n, (pattern, text) in enumerate(PARSES):
    records[f"parse_{n}"] = {
        "kind": "sink",
        "topic": "p",
        "partition": 0,
        "offset": 0,
        "timestamp": 1,
        "value": env(s("string"), text),
    }
    t(
        f"tsconv-parse-{n}",
        T + "TimestampConverter$Value",
        {"target.type": "unix", "format": pattern},
        [f"parse_{n}"],
    )
t("maskfield-decimal", T + "MaskField$Value", {"fields": "amount"}, ["struct_value"])
t(
    "maskfield-decimal-replacement",
    T + "MaskField$Value",
    {"fields": "amount", "replacement": "12.5"},
    ["struct_value"],
)
t(
    "maskfield-bytes-replacement",
    T + "MaskField$Value",
    {"fields": "data", "replacement": "x"},
    ["struct_value"],
)

predicates = [
    {
        "id": "topicnamematches",
        "type": P + "TopicNameMatches",
        "config": {"pattern": "ord.*"},
        "records": ALL,
    },
    {
        "id": "topicnamematches-partial",
        "type": P + "TopicNameMatches",
        "config": {"pattern": "ord"},
        "records": ["map_value"],
    },
    {
        "id": "hasheaderkey",
        "type": P + "HasHeaderKey",
        "config": {"name": "h1"},
        "records": [*ALL, "headers_many"],
    },
    {"id": "recordistombstone", "type": P + "RecordIsTombstone", "config": {}, "records": ALL},
    {
        "id": "topicnamematches-named-group",
        "type": P + "TopicNameMatches",
        "config": {"pattern": "(?<x>src)\\..*"},
        "records": ALL,
    },
]

validations = []


def v(id_, type_, config):
    validations.append({"id": id_, "type": type_, "config": config})


v("insertfield-empty", T + "InsertField$Value", {})
v("insertfield-static-no-value", T + "InsertField$Value", {"static.field": "s"})
v("insertfield-bad-bool", T + "InsertField$Value", {"topic.field": "t", "replace.null.with.default": "maybe"})
v("replacefield-bad-rename", T + "ReplaceField$Value", {"renames": "a:b:c"})
v("replacefield-bad-rename-single", T + "ReplaceField$Value", {"renames": "a,b:c"})
v("replacefield-dup-exclude", T + "ReplaceField$Value", {"exclude": "a,a"})
v("replacefield-empty-include-item", T + "ReplaceField$Value", {"include": "a,,b"})
v("replacefield-ok", T + "ReplaceField$Value", {"include": "a,b", "renames": "a:z"})
v("extractfield-missing", T + "ExtractField$Value", {})
v("extractfield-bad-version", T + "ExtractField$Value", {"field": "a", "field.syntax.version": "v3"})
v(
    "extractfield-incomplete-backtick",
    T + "ExtractField$Value",
    {"field": "`a.b", "field.syntax.version": "V2"},
)
v("hoistfield-missing", T + "HoistField$Value", {})
v("valuetokey-missing", T + "ValueToKey", {})
v("valuetokey-empty", T + "ValueToKey", {"fields": ""})
v("valuetokey-dup", T + "ValueToKey", {"fields": "a,a"})
v("maskfield-empty-replacement", T + "MaskField$Value", {"fields": "a", "replacement": ""})
v("maskfield-empty-fields", T + "MaskField$Value", {"fields": ""})
v("cast-empty", T + "Cast$Value", {"spec": ""})
v("cast-missing", T + "Cast$Value", {})
v("cast-unknown-type", T + "Cast$Value", {"spec": "a:foo"})
v("cast-to-bytes", T + "Cast$Value", {"spec": "a:bytes"})
v("cast-whole-and-field", T + "Cast$Value", {"spec": "int8,a:int16"})
v("cast-three-parts", T + "Cast$Value", {"spec": "a:int8:x"})
v("cast-whole-struct", T + "Cast$Value", {"spec": "struct"})
v("regexrouter-missing", T + "RegexRouter", {})
v("regexrouter-missing-replacement", T + "RegexRouter", {"regex": "a"})
v("timestamprouter-ok", T + "TimestampRouter", {})
v("topicnamematches-missing", P + "TopicNameMatches", {})
v("topicnamematches-empty", P + "TopicNameMatches", {"pattern": ""})
v("hasheaderkey-empty", P + "HasHeaderKey", {"name": ""})
v("hasheaderkey-missing", P + "HasHeaderKey", {})
v("dropheaders-empty", T + "DropHeaders", {"headers": ""})
v("dropheaders-dup", T + "DropHeaders", {"headers": "a,b,a"})
v("insertheader-missing-value", T + "InsertHeader", {"header": "h"})
v("headerfrom-mismatch", T + "HeaderFrom$Value", {"fields": "a,b", "headers": "h", "operation": "move"})
v("headerfrom-bad-operation", T + "HeaderFrom$Value", {"fields": "a", "headers": "h", "operation": "cut"})
v("headerfrom-empty-fields", T + "HeaderFrom$Value", {"fields": "", "headers": "", "operation": "copy"})
v("setschemametadata-empty", T + "SetSchemaMetadata$Value", {})
v("setschemametadata-bad-version", T + "SetSchemaMetadata$Value", {"schema.version": "x"})
v("flatten-ok", T + "Flatten$Value", {})
v("tsconv-string-no-format", T + "TimestampConverter$Value", {"target.type": "string"})
v("tsconv-bad-target", T + "TimestampConverter$Value", {"target.type": "nope"})
v("tsconv-bad-precision", T + "TimestampConverter$Value", {"target.type": "unix", "unix.precision": "hours"})
v("tsconv-bad-format", T + "TimestampConverter$Value", {"target.type": "string", "format": "yyyy-bb"})
v("tsconv-missing", T + "TimestampConverter$Value", {})

config_defs = sorted({c["type"] for c in transforms} | {c["type"] for c in predicates})
json.dump(
    {
        "records": records,
        "transforms": transforms,
        "predicates": predicates,
        "validations": validations,
        "config_defs": config_defs,
    },
    (Path(__file__).parent / "cases.json").open("w"),
    indent=1,
)
print(len(transforms), len(predicates), len(validations), len(config_defs))
