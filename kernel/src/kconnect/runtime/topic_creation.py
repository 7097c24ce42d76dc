"""Topic creation by a source task (KIP-158): a topic exists, with its group's settings, before the
first record to it is handed to the producer.

The source loop builds one `TopicCreation` per task run (`TopicCreation.for_task`) and awaits
`ensure` with the topics of each batch it is about to send. Topic creation is on when the worker's
``topic.creation.enable`` is true (the default) and the connector config has a ``topic.creation.``
key; otherwise `ensure` does nothing and the broker's ``auto.create.topics.enable`` decides, as in
Kafka.

Steps of `ensure` for the topics this run has not seen yet (Kafka's `maybeCreateTopic` and
`TopicAdmin.createOrFindTopics`, for all of a batch's new topics at once):

1. list the cluster's topics (never a metadata request naming the topic, which a broker with
   ``auto.create.topics.enable`` would answer by creating it with its defaults); a topic that
   exists is remembered and left as it is;
2. create the others, each with its group's partitions, replication factor and topic configs (the
   first group whose include matches and whose exclude does not, else the default group);
   "already exists" counts as found;
3. a topic neither created nor found fails the task with Kafka's text.

While the broker does not answer, `ensure` tries again for `RETRY_TIMEOUT_S` (Kafka's
``default.api.timeout.ms``), and gives up at once when the task is stopping (`SendAbandoned`).
The admin client lives only for one `ensure` that has new topics: after the first batches a task
asks nothing more.
"""

from __future__ import annotations

import asyncio
import logging
import re
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from kconnect.config.topic_creation import (
    BROKER_DEFAULT,
    TopicCreationSettings,
    topic_creation_groups,
    uses_topic_creation,
)
from kconnect.config.worker_settings import TOPIC_CREATION_ENABLE_CONFIG, WorkerSettings
from kconnect.errors import ConnectError
from kconnect.kafka.clients import admin_kwargs, broker_unreachable
from kconnect.kafka.topic_admin import NOT_AUTHORIZED, ErrorCode, TopicAdmin, error_name, new_topic
from kconnect.runtime.batch_sender import SendAbandoned

log = logging.getLogger(__name__)

#: How long `ensure` keeps trying while the broker does not answer (Kafka's ``default.api.timeout.ms``).
RETRY_TIMEOUT_S = 60.0
RETRY_BACKOFF_S = 1.0


@dataclass(frozen=True)
class TopicCreationGroup:
    """One group with its include / exclude compiled as Kafka compiles them (the list joined by ``|``)."""

    settings: TopicCreationSettings
    include: re.Pattern[str]
    exclude: re.Pattern[str]

    @classmethod
    def of(cls, settings: TopicCreationSettings) -> TopicCreationGroup:
        """Compile a group's settings; an empty list matches no topic, as Java's empty pattern does."""
        return cls(settings, re.compile("|".join(settings.include)), re.compile("|".join(settings.exclude)))

    def matches(self, topic: str) -> bool:
        """Whether `topic` is this group's: include matches the whole name and exclude does not."""
        return self.exclude.fullmatch(topic) is None and self.include.fullmatch(topic) is not None


def find_first_group(
    groups: Sequence[TopicCreationGroup], default: TopicCreationSettings, topic: str
) -> TopicCreationSettings:
    """The settings a new `topic` gets: the first of `groups` (listed order) it matches, else `default`."""
    for group in groups:
        if group.matches(topic):
            return group.settings
    return default


def describe_new_topic(topic: str, settings: TopicCreationSettings) -> str:
    """A new topic as Kafka's `NewTopic.toString` shows it in logs and errors."""
    partitions = "default" if settings.partitions == BROKER_DEFAULT else settings.partitions
    factor = "default" if settings.replication_factor == BROKER_DEFAULT else settings.replication_factor
    configs = ", ".join(f"{key}={value}" for key, value in settings.topic_configs.items())
    return (
        f"(name={topic}, numPartitions={partitions}, replicationFactor={factor}, "
        f"replicasAssignments=null, configs={{{configs}}})"
    )


class TopicCreation:
    """Creates a source task's topics with its connector's group settings; one instance per task run."""

    def __init__(
        self,
        groups: Sequence[TopicCreationSettings],
        admin_factory: Callable[[], TopicAdmin],
        stopping: Callable[[], bool] = lambda: False,
        task: str = "",
    ) -> None:
        """`groups`: the extra groups in order, then the default group last; empty turns creation off."""
        self._groups = [TopicCreationGroup.of(settings) for settings in groups[:-1]]
        self._default = groups[-1] if groups else None
        self._admin_factory = admin_factory
        self._stopping = stopping
        self._task = task
        self._known: set[str] = set()

    @classmethod
    def for_task(
        cls,
        worker: WorkerSettings,
        connector: Mapping[str, str],
        stopping: Callable[[], bool] = lambda: False,
        task: str = "",
    ) -> TopicCreation:
        """The topic creation of a source task, from the worker's settings and the connector's properties.

        Called by the source loop when it builds a task. Raises `ConfigException` with Kafka's text
        when the connector's topic creation keys are missing or invalid.
        """
        if not uses_topic_creation(connector):
            return cls([], _no_admin, stopping, task)
        if not worker.topic_creation_enable:
            log.info(
                "%s: the connector's topic.creation.* settings are not used: the worker's %s is false; "
                "topics are created by the broker, if its auto.create.topics.enable allows",
                task,
                TOPIC_CREATION_ENABLE_CONFIG,
            )
            return cls([], _no_admin, stopping, task)
        groups = topic_creation_groups(connector)
        kwargs = admin_kwargs(worker.props, connector)
        return cls(groups, lambda: TopicAdmin.connect(kwargs), stopping, task)

    @property
    def enabled(self) -> bool:
        """Whether this task creates its topics."""
        return self._default is not None

    def settings_for(self, topic: str) -> TopicCreationSettings:
        """The group settings a new `topic` would be created with (only when `enabled`)."""
        assert self._default is not None
        return find_first_group(self._groups, self._default, topic)

    async def ensure(self, topics: Iterable[str]) -> None:
        """Make sure each of `topics` exists before records are sent to it; see the module docstring.

        Called by the source loop with the topics of every batch it sends; a topic this task run
        already found or created is not looked up again. Raises ConnectError when a topic can be
        neither found nor created, SendAbandoned when the task stops while the broker is silent.
        """
        if self._default is None:
            return
        new = [topic for topic in dict.fromkeys(topics) if topic not in self._known]
        if not new:
            return
        deadline = time.monotonic() + RETRY_TIMEOUT_S
        while True:
            try:
                await self._find_or_create(new)
                return
            except Exception as error:
                if not _transient(error) or time.monotonic() >= deadline:
                    if isinstance(error, ConnectError):
                        raise
                    raise ConnectError(
                        f"Error while attempting to create/find topic(s) '{_names(new)}': {error!r}"
                    ) from error
                log.warning(
                    "%s: cannot check topic(s) '%s' yet (%r); trying again", self._task, _names(new), error
                )
            if self._stopping():
                raise SendAbandoned(f"{self._task} stops while its topics cannot be created")
            await asyncio.sleep(RETRY_BACKOFF_S)

    async def _find_or_create(self, topics: list[str]) -> None:
        log.info("%s will send records to topic(s) '%s' for the first time; checking whether they exist",
                 self._task, _names(topics))  # fmt: skip
        async with self._admin_factory() as admin:
            existing = await admin.existing(topics)
            for topic in topics:
                if topic in existing:
                    log.info("Topic '%s' already exists", topic)
                    self._known.add(topic)
            missing = [topic for topic in topics if topic not in existing]
            if missing:
                await self._create(admin, missing)

    async def _create(self, admin: TopicAdmin, topics: list[str]) -> None:
        settings = {topic: self.settings_for(topic) for topic in topics}
        for topic, group in settings.items():
            log.info("Creating topic '%s' with topic creation group %s", topic, group.name)
        results = await admin.create(
            new_topic(topic, group.partitions, group.replication_factor, group.topic_configs)
            for topic, group in settings.items()
        )
        for result in results:
            topic, code, message = result.topic, result.code, result.message
            described = describe_new_topic(topic, settings[topic])
            if result.created:
                log.info("Created topic '%s' using creation group %s", described, settings[topic].name)
            elif result.existed:
                log.info("Found existing topic '%s'", described)
            elif code in NOT_AUTHORIZED or code == ErrorCode.UNSUPPORTED_VERSION:
                log.warning("Request to create new topic '%s' failed: %s", topic, message or error_name(code))
                raise ConnectError(
                    f"Task failed to create new topic {described}. Ensure that the task is authorized to "
                    "create topics or that the topic exists and restart the task"
                )
            elif code == ErrorCode.INVALID_CONFIG:
                raise ConnectError(f"Unable to create topic(s) '{topic}': {message}")
            elif code == ErrorCode.REQUEST_TIMED_OUT:
                raise ConnectError(
                    f"Timed out while checking for or creating topic(s) '{topic}'. This could indicate a "
                    "connectivity issue, unavailable topic partitions, or if this is your first use of the "
                    "topic it may have taken too long to create."
                )
            else:
                raise ConnectError(
                    f"Error while attempting to create/find topic(s) '{topic}': {result.error}"
                )
            self._known.add(topic)


def _transient(error: BaseException) -> bool:
    """Whether trying again may work: the broker did not answer (in time), or the connection broke."""
    return broker_unreachable(error) or isinstance(error, (asyncio.TimeoutError, OSError))


def _names(topics: Iterable[str]) -> str:
    return "', '".join(topics)


def _no_admin() -> TopicAdmin:
    raise AssertionError("topic creation is off: no admin client is needed")
