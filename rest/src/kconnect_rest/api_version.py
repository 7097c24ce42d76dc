"""The versions a client reads: the Kafka Connect release whose REST API kconnect serves, and kconnect's own.

Clients gate features on ``GET /``'s ``version`` (kcctl refuses offsets, stop and more below Kafka
Connect 3.5), so that field names the Kafka release kconnect is tested against and answers like.
``GET /`` answers exactly Kafka's keys (a Java client reading it with Jackson's defaults fails on
an unknown one), so kconnect's own version is in the ``Server`` header, ``GET /executor``'s
``kconnect_version``, the worker's start-up log line and ``kconnect --version``.
"""

from __future__ import annotations

from kconnect import __version__

KAFKA_CONNECT_VERSION = "4.3.1"
"""The Kafka Connect release whose REST API kconnect serves: the one its tests run against
(``KAFKA_VERSION`` in ``scripts/kafka_broker.py``; a unit test keeps the two equal)."""

SERVER_HEADER = f"kconnect/{__version__}"
"""The ``Server`` header of every answer (uvicorn's own is turned off)."""
