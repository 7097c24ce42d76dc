"""What the task side says about where it runs: a second attempt Spark starts by itself refuses to run;
a plugin the executors' Python lacks is named with that Python; a host reports its process's load."""

from __future__ import annotations

import asyncio
import socket
import sys
import threading
import time

import pytest
from kconnect.config.worker_settings import WorkerSettings
from kconnect.executor import TaskSpec
from kconnect.model import ConnectorTaskId
from kconnect_spark.channel import RERUN_REFUSED_ERROR, TaskRerunRefused, read_message
from kconnect_spark.remote import plugin_missing, refuse_rerun, report_load


def test_the_first_attempt_runs() -> None:
    refuse_rerun("task c-0", 0)


@pytest.mark.parametrize("attempt", [1, 3])
def test_a_later_attempt_refuses_naming_the_task_and_the_attempt(attempt: int) -> None:
    with pytest.raises(TaskRerunRefused) as raised:
        refuse_rerun("task c-0", attempt)
    assert f"attempt {attempt} of task c-0's Spark task" in str(raised.value)
    assert type(raised.value).__name__ == RERUN_REFUSED_ERROR  # the name the worker finds in Spark's error


def test_a_missing_plugin_names_the_executors_python_and_host() -> None:
    spec = TaskSpec(ConnectorTaskId("c", 0), "source", "x.Task", {}, {}, WorkerSettings.from_props({}))
    headline = plugin_missing(spec)
    assert headline.startswith(
        "Task c-0 could not load its connector's plugin in Spark's Python worker "
        f"(Python {sys.executable} on host {socket.gethostname()})"
    )
    assert "spark.pyspark.python" in headline


async def test_a_host_reports_the_share_of_a_core_its_process_used_each_interval() -> None:
    """Idle, the host's process uses next to no CPU; with a thread spinning (a busy task's poll) the
    reports say it used more, as soon as the thread gets a core (which depends on what else runs)."""
    reports: asyncio.Queue[dict[str, object]] = asyncio.Queue()

    async def worker_side(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while (message := await read_message(reader)) is not None:
            await reports.put(message)
        writer.close()

    server = await asyncio.start_server(worker_side, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    _, writer = await asyncio.open_connection("127.0.0.1", port)
    reporter = asyncio.create_task(report_load(writer, interval_s=0.3))
    spinning = threading.Event()

    def spin() -> None:
        while spinning.is_set():
            time.perf_counter()

    spinner = threading.Thread(target=spin)
    try:
        idle = await asyncio.wait_for(reports.get(), 5)
        assert set(idle) == {"type", "cpu"} and idle["type"] == "load"
        assert isinstance(idle["cpu"], float) and 0.0 <= idle["cpu"] < 0.3
        spinning.set()
        spinner.start()
        # How soon the spinning thread gets a core depends on the machine's load (a full test run
        # gave it 0.03 of a core in one interval): wait for a report that shows it, 30 s at most.
        deadline = time.monotonic() + 30
        busy = await asyncio.wait_for(reports.get(), 5)
        while not (isinstance(busy["cpu"], float) and busy["cpu"] >= 0.1) and time.monotonic() < deadline:
            busy = await asyncio.wait_for(reports.get(), 5)
        assert isinstance(busy["cpu"], float) and busy["cpu"] >= 0.1 and busy["cpu"] > idle["cpu"], busy
    finally:
        spinning.clear()
        if spinner.is_alive():
            spinner.join()
        reporter.cancel()
        writer.close()
        await writer.wait_closed()
        server.close()
        await server.wait_closed()
