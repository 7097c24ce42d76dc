"""KIP-1004 on a real worker, real Kafka and real Spark: a connector that generates one task config more
than ``tasks.max`` (`tests.connectors.GreedySource`) fails with Kafka's message, unless
``tasks.max.enforce=false``, when every task runs and the worker logs Kafka's warning.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.integration.harness import path_of, wait_until
from tests.plugin_package import install_connectors, plugin_env

pytestmark = pytest.mark.integration

TOO_MANY = (
    "The connector {name} has generated 3 tasks, which is greater than 2, the maximum number of tasks it is "
    "configured to create. This behaviour should be considered a bug and is disallowed. If necessary, it "
    "can be permitted by reconfiguring the connector with 'tasks.max.enforce' set to false; however, this "
    "option will be removed in a future release of Kafka Connect."
)
WARNING = (
    "The connector {name} has generated 3 tasks, which is greater than 2, the maximum number of tasks it "
    "is configured to create. This behavior should be considered a bug and will be disallowed in future "
    "releases of Kafka Connect."
)


def test_tasks_max_enforce(start_worker: Any, tmp_path: Path) -> None:
    plugin = install_connectors(tmp_path / "plugins")
    worker = start_worker({"spark.master": "local[2]"}, env=plugin_env(plugin))
    config = {"connector.class": "GreedySource", "tasks.max": "2"}

    response = worker.request("PUT", f"{path_of('enforced')}/config", config)
    assert response.status_code == 201, response.text
    wait_until(
        "enforced to be FAILED",
        lambda: worker.status("enforced")["connector"]["state"] == "FAILED",
        worker,
    )
    status = worker.status("enforced")
    assert TOO_MANY.format(name="enforced") in status["connector"]["trace"]
    assert status["tasks"] == []
    assert worker.get(f"{path_of('enforced')}/tasks").json() == []

    response = worker.request("PUT", f"{path_of('lax')}/config", {**config, "tasks.max.enforce": "false"})
    assert response.status_code == 201, response.text
    worker.wait_for_state("lax", "RUNNING", tasks=3, timeout=180)
    assert [t["id"]["task"] for t in worker.get(f"{path_of('lax')}/tasks").json()] == [0, 1, 2]
    assert WARNING.format(name="lax") in worker.log_path.read_text(errors="replace")
