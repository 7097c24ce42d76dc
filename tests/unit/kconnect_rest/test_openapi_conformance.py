"""The live OpenAPI document is true to the server: schemathesis, every check, against the in-process app.

Schemathesis reads the document the app serves at ``/openapi`` and sends schema-valid and
schema-violating requests to every operation; every check runs (``-c all``): no server error, the
status code, content type, headers and body each as documented, no schema-valid request rejected
(positive_data_acceptance), no schema-violating request accepted (negative_data_rejection), OPTIONS
and unsupported methods answered with a true ``Allow``. One check is left out where Kafka answers a
schema-valid request with a 400 the document cannot foresee (reasons in `VALID_BUT_400` and in
docs/rest.md): positive_data_acceptance, on those operations only.
"""

from __future__ import annotations

from typing import Any

import schemathesis
from hypothesis import HealthCheck, settings
from kconnect.worker_config import WorkerConfig
from kconnect_rest import create_app
from schemathesis.specs.openapi.checks import positive_data_acceptance

from tests.fake_herder import FakeHerder

CONFIG_IS_THE_CONNECTORS = (
    "a connector config's validity is its ConfigDef's: Kafka's validation errors are 400s"
)
NOT_STOPPED = "Kafka answers 400 (not 409) when the connector is not STOPPED"
VALID_BUT_400 = {
    ("POST", "/connectors"): CONFIG_IS_THE_CONNECTORS,
    ("PUT", "/connectors/{connector}/config"): CONFIG_IS_THE_CONNECTORS,
    ("PATCH", "/connectors/{connector}/config"): CONFIG_IS_THE_CONNECTORS,
    ("PUT", "/connector-plugins/{plugin}/config/validate"): CONFIG_IS_THE_CONNECTORS,
    ("PATCH", "/connectors/{connector}/offsets"): NOT_STOPPED,
    ("DELETE", "/connectors/{connector}/offsets"): NOT_STOPPED,
}
"""Operations where a schema-valid request may be a 400, and why: positive_data_acceptance skips them."""

APP = create_app(FakeHerder(), WorkerConfig.from_props({}))
SCHEMA = schemathesis.openapi.from_asgi("/openapi", APP)


@SCHEMA.parametrize()
@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck), database=None)
def test_the_server_answers_as_its_openapi_document_says(case: Any) -> None:
    excluded = [positive_data_acceptance] if (case.method, case.path) in VALID_BUT_400 else []
    case.call_and_validate(excluded_checks=excluded)
