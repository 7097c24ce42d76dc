"""Loading the plugin, as every worker and Spark task process does, imports no registry client or codec."""

from __future__ import annotations

import subprocess
import sys

#: What the converters need only once configured: the registry client and each format's runtime.
CONVERTER_LIBRARIES = ("confluent_kafka", "httpx", "authlib", "google.protobuf", "fastavro", "orjson")


def test_the_entry_point_and_the_keys_import_no_client_or_codec() -> None:
    probe = (
        "import sys, kconnect_schema_registry.plugin as p\n"
        "[c.config_def for c in p.CONVERTERS]\n"
        f"print(sorted(m for m in {CONVERTER_LIBRARIES!r} if m in sys.modules))\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_each_converter_still_builds_its_format() -> None:
    from kconnect_schema_registry import protobuf
    from kconnect_schema_registry.plugin import CONVERTERS

    for cls in CONVERTERS:
        assert cls.config_def is not None
        parsed = cls.config_def.parse({"schema.registry.url": "http://localhost:1"})
        fmt = cls().new_format(parsed, is_key=False)
        assert type(fmt).__name__ == cls.__name__.replace("Converter", "Format")
    assert protobuf.ProtobufFormat.__module__ == "kconnect_schema_registry.protobuf.format"
