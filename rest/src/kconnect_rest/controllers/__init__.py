"""The REST resources, one controller per Kafka resource class; each handler parses, calls, converts."""

from kconnect_rest.controllers.connector_plugins import ConnectorPluginsController
from kconnect_rest.controllers.connectors import ConnectorsController
from kconnect_rest.controllers.lifecycle import LifecycleController
from kconnect_rest.controllers.loggers import LoggersController
from kconnect_rest.controllers.offsets import OffsetsController
from kconnect_rest.controllers.restarts import RestartsController
from kconnect_rest.controllers.root import RootController
from kconnect_rest.controllers.topics import TopicsController

CONTROLLERS = (
    RootController,
    ConnectorsController,
    LifecycleController,
    OffsetsController,
    TopicsController,
    RestartsController,
    ConnectorPluginsController,
    LoggersController,
)
"""Every controller of the API, in the order the OpenAPI document lists them."""

__all__ = [
    "CONTROLLERS",
    "ConnectorPluginsController",
    "ConnectorsController",
    "LifecycleController",
    "LoggersController",
    "OffsetsController",
    "RestartsController",
    "RootController",
    "TopicsController",
]
