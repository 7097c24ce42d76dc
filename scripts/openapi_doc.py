"""Write the REST API's OpenAPI document, and a page rendering it, for the documentation site.

The document is the one a worker serves at ``GET /openapi``: `kconnect_rest.create_app`'s, built
here for a standalone worker with the installed plugins and memory stores, without a broker (the
herder is created, never started). It is written to ``docs/rest-openapi.json``, and
``docs/rest-openapi.md`` renders it: every operation with its parameters, body and answers, then
every schema. ``--check`` writes nothing and exits 1 when either file is not what the app
generates now (tests/unit/test_docs_site.py runs it).

    python scripts/openapi_doc.py            # regenerate both files
    python scripts/openapi_doc.py --check    # are they current?
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from kconnect.herder.standalone import StandaloneHerder
from kconnect.plugin_host import PluginHost
from kconnect.worker_config import WorkerConfig
from kconnect_rest import create_app
from kconnect_rest.openapi import OPENAPI_PATH

DOCS = Path(__file__).resolve().parent.parent / "docs"
JSON_NAME = "rest-openapi.json"
PAGE_NAME = "rest-openapi.md"
METHODS = ("get", "put", "post", "patch", "delete")


def openapi_document() -> dict[str, Any]:
    """The OpenAPI document a standalone worker with the installed plugins serves."""
    host = PluginHost.load()
    worker = WorkerConfig.from_props({})
    herder = StandaloneHerder.create(worker, host, host.create_executor(worker))
    document: dict[str, Any] = create_app(herder, worker, host).openapi_schema.to_schema()
    return document


def _anchor(name: str) -> str:
    # The anchor MkDocs and GitHub both give the schema's heading (no tag or operation shares it).
    return name.lower()


def _type(schema: Mapping[str, Any]) -> str:
    """A schema in a few words, a component as a link to its section."""
    if "$ref" in schema:
        name = str(schema["$ref"]).rsplit("/", 1)[-1]
        return f"[{name}](#{_anchor(name)})"
    for key in ("oneOf", "anyOf"):
        if key in schema:
            return " or ".join(_type(s) for s in schema[key])
    kind = schema.get("type")
    if isinstance(kind, list):
        return " or ".join(str(k) for k in kind)
    if kind == "array":
        return "array of " + _type(schema.get("items", {}))
    if kind == "object" and isinstance(schema.get("additionalProperties"), Mapping):
        return "map of " + _type(schema["additionalProperties"])
    if "enum" in schema:
        return " \\| ".join(f"`{v}`" for v in schema["enum"])
    if "const" in schema:
        return f"`{schema['const']}`"
    return str(kind or "any")


def _cell(text: object) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def _body_schema(content: Mapping[str, Any] | None) -> str:
    if not content:
        return "empty"
    return ", ".join(f"{_type(media.get('schema', {}))} ({kind})" for kind, media in content.items())


def _operation(method: str, path: str, operation: Mapping[str, Any]) -> list[str]:
    lines = [f"### `{method.upper()} {path}`", "", _cell(operation.get("summary", "")), ""]
    if operation.get("description"):
        lines += [str(operation["description"]).strip(), ""]
    parameters = operation.get("parameters", [])
    if parameters:
        lines += ["| parameter | in | type | required | what |", "|---|---|---|---|---|"]
        for parameter in parameters:
            schema = parameter.get("schema", {})
            what = parameter.get("description") or schema.get("description", "")
            required = "yes" if parameter.get("required") else "no"
            name, where = parameter["name"], parameter["in"]
            lines.append(f"| `{name}` | {where} | {_type(schema)} | {required} | {_cell(what)} |")
        lines.append("")
    body = operation.get("requestBody")
    if body:
        schemas = [media.get("schema", {}) for media in body.get("content", {}).values()]
        what = "; ".join(_cell(s.get("description", "")) for s in schemas if s.get("description"))
        lines += [f"Body: {_body_schema(body.get('content'))}{'. ' + what if what else ''}", ""]
    lines += ["| status | answer | body |", "|---|---|---|"]
    for status in sorted(operation.get("responses", {})):
        response = operation["responses"][status]
        answer, body = _cell(response.get("description", "")), _body_schema(response.get("content"))
        lines.append(f"| {status} | {answer} | {body} |")
    return [*lines, ""]


def _component(name: str, schema: Mapping[str, Any]) -> list[str]:
    lines = [f"### {name}", ""]
    if schema.get("description"):
        lines += [_cell(schema["description"]), ""]
    properties: Mapping[str, Any] = schema.get("properties", {})
    if not properties:
        return [*lines, f"Type: {_type(schema)}.", ""]
    required = set(schema.get("required", []))
    lines += ["| field | type | required | what |", "|---|---|---|---|"]
    for field, field_schema in properties.items():
        what = _cell(field_schema.get("description", ""))
        lines.append(
            f"| `{field}` | {_type(field_schema)} | {'yes' if field in required else 'no'} | {what} |"
        )
    return [*lines, ""]


def render_page(document: Mapping[str, Any]) -> str:
    """The Markdown page for `document`: operations by tag, then the component schemas."""
    info = document["info"]
    lines = [
        "# OpenAPI document",
        "",
        "<!-- Generated by scripts/openapi_doc.py from kconnect_rest's app; do not edit. -->",
        "",
        f"Every worker serves its REST API's OpenAPI {document['openapi']} document at "
        f"`GET {OPENAPI_PATH}` (also `{OPENAPI_PATH}/openapi.json`), generated from the handlers' types, "
        "so it describes exactly what the worker parses and answers; a schemathesis run checks that the "
        "server and the document agree ([REST API](rest.md)). This page renders the document of "
        f"{info['title']} {info['version']} for a standalone worker: the distributed workers' internal "
        "endpoints and the endpoints REST extensions add are not in it. "
        f"[Download the JSON]({JSON_NAME}) for a client generator or an API tool.",
        "",
    ]
    by_tag: dict[str, list[tuple[str, str, Mapping[str, Any]]]] = {}
    for path, operations in document["paths"].items():
        for method in METHODS:
            if method in operations:
                operation = operations[method]
                tag = (operation.get("tags") or ["other"])[0]
                by_tag.setdefault(tag, []).append((method, path, operation))
    for tag, operations in by_tag.items():
        lines += [f"## {tag}", ""]
        for method, path, operation in operations:
            lines += _operation(method, path, operation)
    lines += ["## Schemas", ""]
    for name, schema in sorted(document.get("components", {}).get("schemas", {}).items()):
        lines += _component(name, schema)
    return "\n".join(lines).rstrip() + "\n"


def rendered_files() -> dict[Path, str]:
    """Each file this script writes, with its content."""
    document = openapi_document()
    return {
        DOCS / JSON_NAME: json.dumps(document, indent=2, sort_keys=True) + "\n",
        DOCS / PAGE_NAME: render_page(document),
    }


def main(argv: list[str] | None = None) -> int:
    """Write the files (0), or with ``--check`` say which are stale (1) or that none is (0)."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if a file is not current")
    args = parser.parse_args(argv)
    stale = []
    for path, text in rendered_files().items():
        current = path.read_text(encoding="utf-8") if path.exists() else None
        if current == text:
            continue
        if args.check:
            stale.append(path.name)
        else:
            path.write_text(text, encoding="utf-8")
            print(f"wrote {path}")
    if stale:
        print(f"not current: {', '.join(stale)}; run python scripts/openapi_doc.py", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
