"""Kafka Connect's REST API for kconnect: litestar controllers over the herder, served by uvicorn.

`create_app` builds the app for a herder; `RestServer` serves it on the worker's first listener in
the worker's own event loop. REST extensions (Kafka's ConnectRestExtension) are litestar plugins
returned by factories registered through the ``register_rest_extensions`` hook; see
`kconnect.rest.extensions`.
"""

from kconnect.rest.app import create_app
from kconnect.rest.extensions import ClusterState, RestExtensionFactory
from kconnect.rest.server import RestServer

__all__ = ["ClusterState", "RestExtensionFactory", "RestServer", "create_app"]
