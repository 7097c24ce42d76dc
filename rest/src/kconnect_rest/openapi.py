"""The live OpenAPI document's configuration, and what litestar's generator leaves out.

The document is generated from the handlers' types, so it promises what the parser checks. Two
things litestar gets wrong are put right here: a request body Struct with ``forbid_unknown_fields``
(Kafka's Jackson refuses unknown fields too) gets ``additionalProperties: false``, and a config value
(string, number or boolean) is one type list, not a ``oneOf`` in which an integer matches both
``integer`` and ``number`` and so matches neither. `create_app` serves the document at
`OPENAPI_PATH`; a schemathesis run (``tests/unit/kconnect_rest/test_openapi_conformance.py``)
checks that the server and the document agree.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import msgspec
from kconnect import __version__
from litestar import Request, Router
from litestar._openapi.schema_generation.plugins.struct import StructSchemaPlugin
from litestar.exceptions import NotFoundException
from litestar.openapi.config import OpenAPIConfig
from litestar.openapi.plugins import JsonRenderPlugin
from litestar.openapi.spec import OpenAPIType, Schema
from litestar.plugins import OpenAPISchemaPlugin

from kconnect_rest.bodies import ConfigScalar, ConfigValue

if TYPE_CHECKING:
    from litestar._openapi.schema_generation import SchemaCreator
    from litestar.typing import FieldDefinition

OPENAPI_PATH = "/openapi"
OPENAPI_DOCUMENTS = frozenset({OPENAPI_PATH, f"{OPENAPI_PATH}/openapi.json"})
"""Where the live OpenAPI document is served (both paths give the same JSON)."""


class ClosedStructSchemaPlugin(StructSchemaPlugin):
    """Litestar's Struct schemas, closed (``additionalProperties: false``) where unknown fields fail."""

    def to_openapi_schema(self, field_definition: FieldDefinition, schema_creator: SchemaCreator) -> Schema:
        """The Struct's component schema; called by litestar's schema generator once per Struct."""
        schema = super().to_openapi_schema(field_definition, schema_creator)
        info = msgspec.inspect.type_info(field_definition.type_)
        if isinstance(info, msgspec.inspect.StructType) and info.forbid_unknown_fields:
            schema.additional_properties = False
        return schema


class ConfigValueSchemaPlugin(OpenAPISchemaPlugin):
    """A config value (`ConfigValue`; `ConfigScalar` in a PATCH) as one list of JSON types."""

    def is_plugin_supported_field(self, field_definition: FieldDefinition) -> bool:
        """Whether the field is a config value; asked by litestar's schema generator for every type."""
        return field_definition.annotation in (ConfigValue, ConfigScalar)

    def to_openapi_schema(self, field_definition: FieldDefinition, schema_creator: SchemaCreator) -> Schema:
        """The type list; null only where a null is accepted (PATCH: it removes the key)."""
        types = [OpenAPIType.STRING, OpenAPIType.NUMBER, OpenAPIType.BOOLEAN]
        if field_definition.annotation == ConfigScalar:
            types.append(OpenAPIType.NULL)
        return Schema(type=types)


SCHEMA_PLUGINS = (ClosedStructSchemaPlugin(), ConfigValueSchemaPlugin())
"""The schema plugins `create_app` adds to the app."""


async def _only_documents(request: Request[Any, Any, Any]) -> None:
    # litestar adds an HTML "not found" page under the OpenAPI path; every error here is JSON.
    if request.scope["path"].rstrip("/") not in OPENAPI_DOCUMENTS:
        raise NotFoundException()


def openapi_config() -> OpenAPIConfig:
    """The OpenAPI configuration of the REST app: JSON only, at `OPENAPI_PATH`."""
    return OpenAPIConfig(
        title="kconnect REST API",
        version=__version__,
        description="Apache Kafka Connect's REST API, served by kconnect.",
        render_plugins=[JsonRenderPlugin(path=["/", "/openapi.json"])],
        openapi_router=Router(
            path=OPENAPI_PATH, route_handlers=[], include_in_schema=False, before_request=_only_documents
        ),
    )
