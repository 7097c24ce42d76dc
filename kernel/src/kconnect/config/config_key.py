"""One configuration key and its validation outcome: what a `ConfigDef` holds and what its engines read.

`ConfigKey` (a defined key), `ConfigValue` (one key's validation result), Kafka's `Importance` and
`Width`, the `Recommender` protocol, and `DefinedKeys`: the part of a `ConfigDef` that the engines
(`json_schema`, `validation`) read. They sit below `configdef` so that `ConfigDef.validate` and
`ConfigDef.json_schema` can call the engines while the engines never import the def.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import Protocol

from .rules import Validator
from .values import NO_DEFAULT, ConfigType


class Importance(str, Enum):
    """How likely a user is to need to change a key (Kafka's `ConfigDef.Importance`)."""

    HIGH = "HIGH"
    MEDIUM = "MEDIUM"
    LOW = "LOW"


class Width(str, Enum):
    """How wide a UI should draw a key's input field (Kafka's `ConfigDef.Width`)."""

    NONE = "NONE"
    SHORT = "SHORT"
    MEDIUM = "MEDIUM"
    LONG = "LONG"


class Recommender(Protocol):
    """Gives a key's valid values and visibility from the other keys' parsed values (Kafka's Recommender).

    Called by `ConfigDef.validate` after every key is parsed, for each key that has a recommender.
    """

    def valid_values(self, name: str, parsed_config: Mapping[str, object]) -> list[object]:
        """The values `name` may take given the parsed config; shown as ``recommended_values``."""
        ...

    def visible(self, name: str, parsed_config: Mapping[str, object]) -> bool:
        """Whether `name` matters given the parsed config; shown as ``visible``."""
        ...


@dataclass(frozen=True)
class ConfigKey:
    """One defined configuration key; `default` is already parsed to the key's type, or `NO_DEFAULT`."""

    name: str
    type: ConfigType
    default: object
    validator: Validator | None
    importance: Importance
    documentation: str
    group: str | None = None
    order_in_group: int = -1
    width: Width = Width.NONE
    display_name: str = ""
    dependents: tuple[str, ...] = ()
    recommender: Recommender | None = None
    internal: bool = False

    @property
    def has_default(self) -> bool:
        """False when the key is required (defined with `NO_DEFAULT`)."""
        return self.default is not NO_DEFAULT


@dataclass
class ConfigValue:
    """The validation outcome for one key (Kafka's `ConfigValue`): value, recommendations, errors."""

    name: str
    value: object = None
    recommended_values: list[object] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    visible: bool = True

    def add_error(self, message: str) -> None:
        """Append one error text; a key may collect several."""
        self.errors.append(message)


class DefinedKeys(Protocol):
    """A def's keys as the engines read them; `ConfigDef` is one.

    `kconnect.config.json_schema` and `kconnect.config.validation` take this rather than a
    `ConfigDef`, so that the def can call them.
    """

    @property
    def config_keys(self) -> Mapping[str, ConfigKey]:
        """The keys by name, in definition order."""
        ...

    def groups(self) -> list[str]:
        """The group names, in the order each was first used by a key."""
        ...

    def undefined_dependents(self) -> list[str]:
        """Names listed as some key's dependent but not defined, in first-seen order."""
        ...
