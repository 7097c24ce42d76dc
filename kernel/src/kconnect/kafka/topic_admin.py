"""The one topic admin: an admin client, "create these topics, tell me which exist", Kafka's error codes.

Three parts of the worker create topics, each with a policy of its own: the internal topics
(`kconnect.storage.topics`: compacted, checked, refused when unfit), a source task's new topics
(`kconnect.runtime.topic_creation`: KIP-158 groups) and a sink's dead letter queue
(`kconnect.runtime.dead_letter_queue`). Each opens a `TopicAdmin` with the client settings that are
its own (`kconnect.kafka.clients.internal_kwargs` or `admin_kwargs`) and uses it for one job::

    async with TopicAdmin.connect(kwargs) as admin:
        found = await admin.existing(names)       # optional: look before creating
        results = await admin.create([new_topic(name, partitions, replication_factor)])

`create` answers per topic with a `TopicResult`: created, already there, or refused with Kafka's
error code and message (`ErrorCode`); what a refusal means (a warning, an error, which text) is
the caller's. `TopicAdmin` does no retrying and raises aiokafka's errors as they come.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import IntEnum
from types import TracebackType
from typing import Any, Protocol

from aiokafka.admin import AIOKafkaAdminClient, NewTopic
from aiokafka.admin.config_resource import ConfigResource, ConfigResourceType
from aiokafka.errors import for_code


class ErrorCode(IntEnum):
    """The error codes of Kafka's protocol (Kafka's ``Errors``) that topic admin answers are read for."""

    NONE = 0
    UNKNOWN_TOPIC_OR_PARTITION = 3
    LEADER_NOT_AVAILABLE = 5
    REQUEST_TIMED_OUT = 7
    TOPIC_AUTHORIZATION_FAILED = 29
    CLUSTER_AUTHORIZATION_FAILED = 31
    UNSUPPORTED_VERSION = 35
    TOPIC_ALREADY_EXISTS = 36
    INVALID_CONFIG = 40


NOT_AUTHORIZED = frozenset({ErrorCode.TOPIC_AUTHORIZATION_FAILED, ErrorCode.CLUSTER_AUTHORIZATION_FAILED})
"""The client may not create (or describe) the topic."""
NOT_YET_KNOWN = frozenset({ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, ErrorCode.LEADER_NOT_AVAILABLE})
"""The broker's metadata is behind: a topic just created is not described yet."""


def error_name(code: int) -> str:
    """The name of the aiokafka error for `code` (``InvalidReplicationFactorError``), as messages show it."""
    name: str = for_code(code).__name__
    return name


@dataclass(frozen=True)
class TopicResult:
    """The broker's answer for one topic of a `TopicAdmin.create` call."""

    topic: str
    code: int
    message: str = ""
    """The broker's message ("" when it sent none)."""

    @property
    def created(self) -> bool:
        """Whether this call created the topic."""
        return self.code == ErrorCode.NONE

    @property
    def existed(self) -> bool:
        """Whether the topic was there already (Kafka's TOPIC_ALREADY_EXISTS)."""
        return self.code == ErrorCode.TOPIC_ALREADY_EXISTS

    @property
    def error(self) -> str:
        """The refusal as kconnect's messages quote it: ``<aiokafka error name>: <broker message>``."""
        return f"{error_name(self.code)}: {self.message}"


def new_topic(
    name: str, partitions: int, replication_factor: int, configs: Mapping[str, str] | None = None
) -> NewTopic:
    """A topic to create; -1 for `partitions` or `replication_factor` leaves that count to the broker."""
    broker_default = -1 in (partitions, replication_factor)
    return NewTopic(
        name,
        partitions,
        replication_factor,
        # aiokafka wants replica assignments exactly when a count is left to the broker; none is fine.
        replica_assignments={} if broker_default else None,
        topic_configs=dict(configs or {}),
    )


class AdminClient(Protocol):
    """The part of aiokafka's admin client `TopicAdmin` uses (`AIOKafkaAdminClient` satisfies it)."""

    async def start(self) -> None:
        """Connect to the cluster."""
        ...

    async def close(self) -> None:
        """Disconnect."""
        ...

    async def list_topics(self) -> list[str]:
        """Every topic name the client may see."""
        ...

    async def create_topics(
        self, new_topics: list[NewTopic], timeout_ms: int | None = None, validate_only: bool = False
    ) -> Any:
        """Create topics; the response's ``topic_errors`` holds (name, error code[, message]) per topic."""
        ...

    async def describe_topics(self, topics: list[str] | None = None) -> list[Any]:
        """Each topic's metadata: ``topic``, ``error_code``, ``partitions``."""
        ...

    async def describe_configs(
        self, config_resources: list[ConfigResource], include_synonyms: bool = False
    ) -> list[Any]:
        """Configs of resources: responses whose ``resources`` hold (code, message, type, name, entries)."""
        ...


class TopicAdmin:
    """One admin client for one job on topics; open it with ``async with`` (see the module docstring)."""

    def __init__(self, client: AdminClient) -> None:
        """Wrap `client` (not started); `connect` makes a real one."""
        self._client = client

    @classmethod
    def connect(cls, kwargs: Mapping[str, Any]) -> TopicAdmin:
        """A topic admin over an aiokafka admin client with these arguments (`kconnect.kafka.clients`)."""
        client: AdminClient = AIOKafkaAdminClient(**kwargs)
        return cls(client)

    async def __aenter__(self) -> TopicAdmin:
        """Connect; the client is closed again when connecting fails."""
        try:
            await self._client.start()
        except BaseException:
            await self._client.close()
            raise
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        """Close the client."""
        await self._client.close()

    async def existing(self, topics: Iterable[str]) -> set[str]:
        """Which of `topics` the cluster has, from a listing of all its topics.

        Never a metadata request naming them: a broker with ``auto.create.topics.enable`` would
        answer it by creating them with its defaults.
        """
        listed = set(await self._client.list_topics())
        return {topic for topic in topics if topic in listed}

    async def create(self, topics: Iterable[NewTopic]) -> list[TopicResult]:
        """Ask the broker to create `topics`; one `TopicResult` per topic, in the broker's order."""
        response = await self._client.create_topics(list(topics))
        return [
            TopicResult(topic, code, (detail[0] if detail else "") or "")
            for topic, code, *detail in response.topic_errors
        ]

    async def topic_configs(self, topic: str) -> dict[str, str] | None:
        """The configs of `topic` that have a value; None while the broker does not know the topic
        yet (`NOT_YET_KNOWN`), empty when it will not describe them."""
        resource = ConfigResource(ConfigResourceType.TOPIC, topic, None)
        configs: dict[str, str] = {}
        for response in await self._client.describe_configs([resource]):
            for code, _message, _type, _name, entries in response.resources:
                if code in NOT_YET_KNOWN:
                    return None
                for entry in entries if code == ErrorCode.NONE else ():
                    if entry[1] is not None:
                        configs[entry[0]] = entry[1]
        return configs

    async def partition_count(self, topic: str) -> int | None:
        """How many partitions `topic` has; None while the broker does not know the topic yet,
        0 when it will not describe it."""
        for described in await self._client.describe_topics([topic]):
            if described["topic"] != topic or described["error_code"] in NOT_YET_KNOWN:
                continue
            if described["error_code"] != ErrorCode.NONE:
                return 0
            return len(described["partitions"]) or None
        return None
