"""Kafka Connect's REST API for kconnect: litestar controllers over the herder, served by uvicorn.

`create_app` builds the app for a herder; `RestServer` serves it on every listener of the worker
(http and https, `kconnect_rest.tls`) in the worker's own event loop. REST extensions (Kafka's
ConnectRestExtension) are litestar plugins returned by factories registered through the
``register_rest_extensions`` hook; see `kconnect_rest.extensions`. The read-only view of the
cluster they receive is the kernel's `kconnect.cluster.ClusterState`.
"""

from kconnect_rest.app import create_app
from kconnect_rest.extensions import RestExtensionFactory
from kconnect_rest.server import RestServer

__all__ = ["RestExtensionFactory", "RestServer", "create_app"]
