"""The live OpenAPI document is true to the server: schemathesis, every check, against the in-process app.

Schemathesis reads the document the app serves at ``/openapi`` and sends schema-valid and
schema-violating requests to every operation; every check runs (``-c all``): no server error, the
status code, content type, headers and body each as documented, no schema-valid request rejected
(positive_data_acceptance), no schema-violating request accepted (negative_data_rejection), OPTIONS
and unsupported methods answered with a true ``Allow``. The repository's ``schemathesis.toml`` (also
read by ``schemathesis run``) widens two checks on a few operations where Kafka itself answers a
schema-valid request with a 400 or a 500; each with its reason there and in docs/rest.md.
"""

from __future__ import annotations

from typing import Any

import schemathesis
from hypothesis import HealthCheck, settings
from kconnect.worker_config import WorkerConfig
from kconnect_rest import create_app
from schemathesis.config import SchemathesisConfig

from tests.fake_herder import FakeHerder
from tests.harness import REPO_ROOT

APP = create_app(FakeHerder(), WorkerConfig.from_props({}))
CONFIG = SchemathesisConfig.from_path(str(REPO_ROOT / "schemathesis.toml"))
SCHEMA = schemathesis.openapi.from_asgi("/openapi", APP, config=CONFIG)


@SCHEMA.parametrize()
@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck), database=None)
def test_the_server_answers_as_its_openapi_document_says(case: Any) -> None:
    case.call_and_validate()
