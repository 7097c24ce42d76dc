"""TimestampRouter: renames the topic from a format of the old topic and the record's timestamp."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from kconnect.config.configdef import ConfigDef, ConfigType, Importance
from kconnect.errors import DataError

from kconnect_transforms.base import TRANSFORMS_PACKAGE, Plugin, R
from kconnect_transforms.simple_date_format import SimpleDateFormat

TOPIC_FORMAT = "topic.format"
TIMESTAMP_FORMAT = "timestamp.format"


def describe_record(record: Any) -> str:
    """A record as Kafka's messages show it, close enough to recognise (Java's ``toString``)."""
    return (
        f"{type(record).__name__}{{topic='{record.topic}', kafkaPartition={record.kafka_partition}, "
        f"timestamp={record.timestamp}}}"
    )


class TimestampRouter(Plugin):
    """Kafka's TimestampRouter: ``${topic}`` and ``${timestamp}`` in ``topic.format`` filled in."""

    java_class_names = (f"{TRANSFORMS_PACKAGE}TimestampRouter",)
    config_def: ClassVar[ConfigDef | None] = (
        ConfigDef()
        .define(
            TOPIC_FORMAT,
            type=ConfigType.STRING,
            default="${topic}-${timestamp}",
            importance=Importance.HIGH,
            documentation="The new topic; ${topic} stands for the old topic, ${timestamp} for the "
            "record's timestamp in timestamp.format.",
        )
        .define(
            TIMESTAMP_FORMAT,
            type=ConfigType.STRING,
            default="yyyyMMdd",
            importance=Importance.HIGH,
            documentation="A java.text.SimpleDateFormat pattern for the timestamp, in UTC.",
        )
    )

    def __init__(self) -> None:
        self.topic_format = ""
        self.timestamp_pattern = ""
        self._format: SimpleDateFormat | None = None

    def configure(self, configs: Mapping[str, Any]) -> None:
        """Read the formats; the date pattern is checked when the first record needs it, as in Kafka."""
        config = self.parse_config(configs)
        self.topic_format = str(config[TOPIC_FORMAT])
        self.timestamp_pattern = str(config[TIMESTAMP_FORMAT])
        self._format = None

    def apply(self, record: R) -> R | None:
        """The record on its new topic; DataError when it has no timestamp."""
        if record.timestamp is None:
            raise DataError(f"Timestamp missing on record: {describe_record(record)}")
        if self._format is None:
            self._format = SimpleDateFormat(self.timestamp_pattern)
        stamp = self._format.format_millis(record.timestamp)
        topic = self.topic_format.replace("${topic}", record.topic).replace("${timestamp}", stamp)
        return record.new_record(topic=topic)  # type: ignore[no-any-return]
