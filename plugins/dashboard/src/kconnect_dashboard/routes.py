"""The dashboard's route: ``/dashboard`` serves the files of ``static/`` (``index.html`` for itself).

Only the files shipped in ``static/`` are served, with their content types; the page then talks to
the REST API of the listener that served it.
"""

from __future__ import annotations

from pathlib import Path

from litestar.config.app import AppConfig
from litestar.plugins import InitPluginProtocol
from litestar.static_files import create_static_files_router

#: Where the dashboard is served.
DASHBOARD_PATH = "/dashboard"
STATIC = Path(__file__).parent / "static"


class DashboardPlugin(InitPluginProtocol):
    """Adds the dashboard's route to the worker's REST app."""

    def on_app_init(self, app_config: AppConfig) -> AppConfig:
        """Serve ``static/`` at ``/dashboard`` (``index.html`` for ``/dashboard`` itself)."""
        files = create_static_files_router(
            path=DASHBOARD_PATH, directories=[STATIC], html_mode=True, include_in_schema=False
        )
        app_config.route_handlers.append(files)
        return app_config
