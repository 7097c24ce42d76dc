"""Loading the plugin, as every worker and Spark task process does, imports no REST layer."""

from __future__ import annotations

import subprocess
import sys

#: What only serving ``GET /metrics`` needs; a Spark task process loads the plugin but serves no REST API.
ENDPOINT_LIBRARIES = ("kconnect_rest", "litestar", "prometheus_client")


def test_the_entry_point_imports_no_rest_layer_or_prometheus_client() -> None:
    probe = (
        "import sys, kconnect_metrics.plugin\n"
        f"print(sorted(m for m in {ENDPOINT_LIBRARIES!r} if m in sys.modules))\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
