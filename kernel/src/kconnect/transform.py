"""Single message transforms and predicates (Kafka's Transformation and Predicate)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar, Protocol, TypeVar, runtime_checkable

from kconnect.config import ConfigDef
from kconnect.records import ConnectRecord

R = TypeVar("R", bound=ConnectRecord)


@runtime_checkable
class Transformation(Protocol):
    """Changes or drops one record at a time; runs inside the task loop on the data path."""

    config_def: ClassVar[ConfigDef | None]

    def configure(self, configs: Mapping[str, Any]) -> None:
        """Configure with the transform's properties (`transforms.<alias>.` prefix stripped)."""
        ...

    def apply(self, record: R) -> R | None:
        """Return the changed record, or None to drop it."""
        ...

    def close(self) -> None:
        """Release resources; called when the task stops."""
        ...


@runtime_checkable
class Predicate(Protocol):
    """Decides whether a transformation applies to a record."""

    config_def: ClassVar[ConfigDef | None]

    def configure(self, configs: Mapping[str, Any]) -> None:
        """Configure with the predicate's properties (`predicates.<alias>.` prefix stripped)."""
        ...

    def test(self, record: ConnectRecord) -> bool:
        """True if the record matches."""
        ...

    def close(self) -> None:
        """Release resources."""
        ...
