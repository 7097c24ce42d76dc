"""Kafka Connect's single message transformations and predicates for kconnect.

Installed as a kconnect plugin through the entry point ``transforms``; a connector config names
them as Kafka's does (``transforms.route.type=org.apache.kafka.connect.transforms.RegexRouter``)
or by the class name alone (``RegexRouter``, ``InsertField$Value``). Each behaves as the Kafka
class of that name does, with the same configuration keys, defaults and error texts.
"""

from __future__ import annotations

__version__ = "0.1.0"
