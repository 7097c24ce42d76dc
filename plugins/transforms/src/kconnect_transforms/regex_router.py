"""RegexRouter: renames the topic when the whole topic matches ``regex``, using ``replacement``."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, ClassVar

from kconnect.config.configdef import ConfigDef, ConfigType, Importance

from kconnect_transforms.base import TRANSFORMS_PACKAGE, Plugin, R
from kconnect_transforms.java_regex import compile_java, expand_replacement
from kconnect_transforms.validators import JavaRegex

REGEX = "regex"
REPLACEMENT = "replacement"


class RegexRouter(Plugin):
    """Kafka's RegexRouter: the first match of the regex in the topic replaced, when the topic matches."""

    java_class_names = (f"{TRANSFORMS_PACKAGE}RegexRouter",)
    config_def: ClassVar[ConfigDef | None] = (
        ConfigDef()
        .define(
            REGEX,
            type=ConfigType.STRING,
            validator=JavaRegex(),
            importance=Importance.HIGH,
            documentation="The regular expression the whole topic must match.",
        )
        .define(
            REPLACEMENT,
            type=ConfigType.STRING,
            importance=Importance.HIGH,
            documentation="The new topic, with $1 or ${name} for the regex's groups.",
        )
    )

    def __init__(self) -> None:
        self.regex: re.Pattern[str] = re.compile("")
        self.replacement = ""

    def configure(self, configs: Mapping[str, Any]) -> None:
        """Compile the regex and keep the replacement."""
        config = self.parse_config(configs)
        self.regex = compile_java(str(config[REGEX]))
        self.replacement = str(config[REPLACEMENT])

    def apply(self, record: R) -> R | None:
        """The record on its new topic, or unchanged when the topic does not match."""
        if not self.regex.fullmatch(record.topic):
            return record
        first = self.regex.search(record.topic)
        assert first is not None
        topic = (
            record.topic[: first.start()]
            + expand_replacement(first, self.replacement)
            + record.topic[first.end() :]
        )
        return record.new_record(topic=topic)  # type: ignore[no-any-return]
