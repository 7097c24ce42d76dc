"""Protobuf schemas as the registry returns them -> `FileDescriptorProto`s.

A registry holds a Protobuf schema as ``.proto`` text (what Confluent's Java clients and kconnect
register) or as a base64 ``FileDescriptorProto`` (what confluent-kafka's Python serializer
registers; Apicurio stores and returns it as sent). Base64 is decoded; text is compiled by
``protoc`` (the one grpcio-tools ships, run as ``python -m grpc_tools.protoc`` so its errors can be
reported), with the well-known files fed from their ``*_pb2`` modules and each referenced schema
fetched from the registry and written under its reference name. A ``(confluent.*_meta)`` option
without ``import "confluent/meta.proto"`` is accepted, as Confluent's registry accepts it (its
ProtobufConverter registers such text).
"""

from __future__ import annotations

import base64
import binascii
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass

from google.protobuf import descriptor_pb2
from google.protobuf.message import DecodeError
from kconnect.errors import DataError

from kconnect_schema_registry.client import SchemaReference, SchemaText
from kconnect_schema_registry.protobuf.schema import is_known_file, known_file

MAIN_FILE = "kconnect_registry_schema.proto"
_META_IMPORT = "confluent/meta.proto"
_USES_META = re.compile(r"\(\s*confluent\.(file|message|field|enum|enum_value)_meta\s*\)")
_PROTOC_TIMEOUT_S = 60


@dataclass(frozen=True)
class ParsedFiles:
    """A schema's file and the referenced (not well-known) files it imports, by name."""

    file: descriptor_pb2.FileDescriptorProto
    dependencies: dict[str, descriptor_pb2.FileDescriptorProto]


def decode_base64_file(text: str) -> descriptor_pb2.FileDescriptorProto | None:
    """The `FileDescriptorProto` in base64 `text`, or None when `text` is not one."""
    stripped = text.strip()
    if not stripped or any(c in stripped for c in ' \n{};"'):
        return None
    try:
        raw = base64.b64decode(stripped, validate=True)
        proto = descriptor_pb2.FileDescriptorProto()
        proto.ParseFromString(raw)
    except (binascii.Error, ValueError, DecodeError):
        return None
    return proto


def parse_schema(text: SchemaText, fetch: Callable[[SchemaReference], SchemaText]) -> ParsedFiles:
    """The files of a registered schema; `fetch` reads a referenced schema (subject and version)."""
    texts: dict[str, str] = {}
    binaries: dict[str, descriptor_pb2.FileDescriptorProto] = {}

    def collect(name: str, schema: SchemaText) -> None:
        proto = decode_base64_file(schema.text)
        if proto is not None:
            proto.name = name
            binaries[name] = proto
        else:
            texts[name] = _with_meta_import(schema.text)
        for reference in schema.references:
            ref_name = reference.name or ""
            if is_known_file(ref_name) or ref_name in texts or ref_name in binaries:
                continue
            collect(ref_name, fetch(reference))

    collect(MAIN_FILE, text)
    if not texts:
        dependencies = {name: proto for name, proto in binaries.items() if name != MAIN_FILE}
        return ParsedFiles(binaries[MAIN_FILE], dependencies)
    compiled = _compile(texts, binaries)
    main = compiled.pop(MAIN_FILE)
    return ParsedFiles(main, {n: f for n, f in compiled.items() if not is_known_file(n)})


def _with_meta_import(text: str) -> str:
    if _USES_META.search(text) and f'"{_META_IMPORT}"' not in text:
        # An import may stand anywhere at the top level; at the end it moves no line numbers.
        return f'{text}\nimport "{_META_IMPORT}";\n'
    return text


def _known_files_needed(
    texts: dict[str, str], binaries: dict[str, descriptor_pb2.FileDescriptorProto]
) -> descriptor_pb2.FileDescriptorSet:
    # protoc reads every well-known file from this set; their own imports come first.
    found = descriptor_pb2.FileDescriptorSet()
    added: set[str] = set()

    def add(name: str) -> None:
        if name in added:
            return
        added.add(name)
        proto = known_file(name)
        for dependency in proto.dependency:
            add(dependency)
        found.file.append(proto)

    for name in ("google/protobuf/descriptor.proto", _META_IMPORT):
        add(name)
    imported = re.compile(r'import\s+(?:public\s+|weak\s+)?"([^"]+)"')
    for text in texts.values():
        for name in imported.findall(text):
            if is_known_file(name):
                add(name)
    for proto in binaries.values():
        for name in proto.dependency:
            if is_known_file(name):
                add(name)
    found.file.extend(binaries.values())
    return found


def _compile(
    texts: dict[str, str], binaries: dict[str, descriptor_pb2.FileDescriptorProto]
) -> dict[str, descriptor_pb2.FileDescriptorProto]:
    with tempfile.TemporaryDirectory(prefix="kconnect-protoc-") as directory:
        for name, text in texts.items():
            path = os.path.join(directory, "src", name)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", encoding="utf-8") as out:
                out.write(text)
        known = os.path.join(directory, "known.pb")
        with open(known, "wb") as out:
            out.write(_known_files_needed(texts, binaries).SerializeToString())
        result_path = os.path.join(directory, "out.pb")
        command = [
            sys.executable,
            "-m",
            "grpc_tools.protoc",
            f"--descriptor_set_in={known}",
            f"--proto_path={os.path.join(directory, 'src')}",
            f"--descriptor_set_out={result_path}",
            "--include_imports",
            MAIN_FILE,
        ]
        try:
            run = subprocess.run(
                command, capture_output=True, text=True, timeout=_PROTOC_TIMEOUT_S, check=False
            )
        except (OSError, subprocess.TimeoutExpired) as e:
            raise DataError(f"Could not run protoc (grpcio-tools) to parse a Protobuf schema: {e}") from e
        if run.returncode != 0:
            source = os.path.join(directory, "src", "")
            lines = (run.stderr or run.stdout).replace(source + MAIN_FILE, "schema").replace(source, "")
            detail = "; ".join(
                line
                for line in lines.splitlines()
                if line.strip() and not line.startswith(("WARNING: ", "W0"))
            )
            raise DataError(f"Invalid Protobuf schema: {detail}")
        result = descriptor_pb2.FileDescriptorSet()
        with open(result_path, "rb") as data:
            result.ParseFromString(data.read())
    return {proto.name: proto for proto in result.file}
