"""Records Java Kafka Connect 4.3.1 (distributed) wrote, dumped byte for byte from its internal topics.

Produced by `ConnectDistributed` from the 4.3.1 jars against a real broker: a FileStreamSource
``gold-src`` (created, paused, restarted with includeTasks, resumed, stopped) and a FileStreamSink
``gold-gone`` with two tasks (created, then deleted). Each entry is (partition, key, value).
``scripts/java_internal_topics.py`` reproduces the run.
"""

from __future__ import annotations

CONFIG_TOPIC: list[tuple[int, bytes, bytes | None]] = [
    (
        0,
        b"session-key",
        b'{"key":"Pt4piq9MFPzWTpQNFolxce/i7Jqs3OxM7F3HuWznEM0=","algorithm":"HmacSHA256","creation-timestamp":1795359469544}',
    ),
    (
        0,
        b"connector-gold-src",
        b'{"properties":{"connector.class":"org.apache.kafka.connect.file.FileStreamSourceConnector","tasks.max":"1","file":"/tmp/goldjava/in.txt","topic":"gold-data","name":"gold-src"}}',
    ),
    (
        0,
        b"connector-gold-gone",
        b'{"properties":{"connector.class":"org.apache.kafka.connect.file.FileStreamSinkConnector","tasks.max":"2","file":"/tmp/goldjava/out.txt","topics":"gold-data","name":"gold-gone"}}',
    ),
    (
        0,
        b"task-gold-src-0",
        b'{"properties":{"connector.class":"org.apache.kafka.connect.file.FileStreamSourceConnector","file":"/tmp/goldjava/in.txt","task.class":"org.apache.kafka.connect.file.FileStreamSourceTask","tasks.max":"1","name":"gold-src","topic":"gold-data"}}',
    ),
    (0, b"commit-gold-src", b'{"tasks":1}'),
    (
        0,
        b"task-gold-gone-0",
        b'{"properties":{"connector.class":"org.apache.kafka.connect.file.FileStreamSinkConnector","file":"/tmp/goldjava/out.txt","task.class":"org.apache.kafka.connect.file.FileStreamSinkTask","tasks.max":"2","topics":"gold-data","name":"gold-gone"}}',
    ),
    (
        0,
        b"task-gold-gone-1",
        b'{"properties":{"connector.class":"org.apache.kafka.connect.file.FileStreamSinkConnector","file":"/tmp/goldjava/out.txt","task.class":"org.apache.kafka.connect.file.FileStreamSinkTask","tasks.max":"2","topics":"gold-data","name":"gold-gone"}}',
    ),
    (0, b"commit-gold-gone", b'{"tasks":2}'),
    (0, b"target-state-gold-src", b'{"state":"PAUSED","state.v2":"PAUSED"}'),
    (0, b"restart-connector-gold-src", b'{"include-tasks":true,"only-failed":false}'),
    (0, b"target-state-gold-src", b'{"state":"STARTED","state.v2":"STARTED"}'),
    (0, b"commit-gold-src", b'{"tasks":0}'),
    (0, b"target-state-gold-src", b'{"state":"PAUSED","state.v2":"STOPPED"}'),
    (0, b"connector-gold-gone", None),
    (0, b"target-state-gold-gone", None),
]

# The status topic (5 partitions), one record per key shape, in each partition's order.
STATUS_TOPIC: list[tuple[int, bytes, bytes | None]] = [
    (
        0,
        b"status-connector-gold-src",
        b'{"state":"RUNNING","trace":null,"worker_id":"127.0.0.1:38383","generation":2,"version":"4.3.1"}',
    ),
    (
        0,
        b"status-task-gold-src-0",
        b'{"state":"RUNNING","trace":null,"worker_id":"127.0.0.1:38383","generation":4,"version":"4.3.1"}',
    ),
    (
        0,
        b"status-connector-gold-src",
        b'{"state":"RESTARTING","trace":null,"worker_id":"127.0.0.1:38383","generation":4,"version":null}',
    ),
    (
        0,
        b"status-connector-gold-src",
        b'{"state":"STOPPED","trace":null,"worker_id":"127.0.0.1:38383","generation":4,"version":"4.3.1"}',
    ),
    (
        0,
        b"status-task-gold-src-0",
        b'{"state":"UNASSIGNED","trace":null,"worker_id":"127.0.0.1:38383","generation":4,"version":null}',
    ),
    (0, b"status-task-gold-src-0", None),
    (
        1,
        b"status-connector-gold-gone",
        b'{"state":"RUNNING","trace":null,"worker_id":"127.0.0.1:38383","generation":3,"version":"4.3.1"}',
    ),
    (1, b"status-connector-gold-gone", None),
    (
        2,
        b"status-task-gold-gone-1",
        b'{"state":"RUNNING","trace":null,"worker_id":"127.0.0.1:38383","generation":4,"version":"4.3.1"}',
    ),
    (
        2,
        b"status-topic-gold-data:connector-gold-gone",
        b'{"topic":{"name":"gold-data","connector":"gold-gone","task":0,"discoverTimestamp":1795359481542}}',
    ),
    (
        2,
        b"status-task-gold-gone-1",
        b'{"state":"UNASSIGNED","trace":null,"worker_id":"127.0.0.1:38383","generation":6,"version":null}',
    ),
    (2, b"status-topic-gold-data:connector-gold-gone", None),
    (2, b"status-task-gold-gone-1", None),
    (
        3,
        b"status-task-gold-gone-0",
        b'{"state":"RUNNING","trace":null,"worker_id":"127.0.0.1:38383","generation":4,"version":"4.3.1"}',
    ),
    (
        3,
        b"status-topic-gold-data:connector-gold-src",
        b'{"topic":{"name":"gold-data","connector":"gold-src","task":0,"discoverTimestamp":1795359481460}}',
    ),
    (3, b"status-task-gold-gone-0", None),
]

# The offsets topic (25 partitions).
OFFSETS_TOPIC: list[tuple[int, bytes, bytes | None]] = [
    (15, b'["gold-src",{"filename":"/tmp/goldjava/in.txt"}]', b'{"position":35}'),
]
