"""Query parameters as Kafka's REST server (Jersey) reads them.

A boolean query parameter is Java's ``Boolean.parseBoolean``: ``true`` in any case is true and any
other value (``yes``, ``1``, ``garbage``) is false, never a 400. An empty value (``?includeTasks=``)
counts as absent and takes the default, as Jersey's ``@DefaultValue`` does (Kafka 4.3.1 answers
``/connector-plugins?connectorsOnly=`` with connectors only). Handlers declare such a parameter as
text with `boolean_query` and read it with `java_boolean`, so the OpenAPI document promises no more
than the server checks.
"""

from __future__ import annotations

from typing import Any

from litestar.params import QueryParameter


def java_boolean(text: str | None, default: bool) -> bool:
    """A boolean query parameter's value: `default` if absent or empty, else ``text.lower() == "true"``."""
    if not text:
        return default
    return text.lower() == "true"


def boolean_query(name: str, description: str, default: bool) -> Any:
    """The declaration of a boolean query parameter read with `java_boolean`."""
    return QueryParameter(
        name=name,
        description=(
            f"{description}. `true` in any case is true, any other value false "
            f"(Java's Boolean.parseBoolean); default {'true' if default else 'false'}"
        ),
    )
