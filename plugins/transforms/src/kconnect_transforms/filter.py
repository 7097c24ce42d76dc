"""Filter: drops every record; used with a predicate to drop only the records it matches."""

from __future__ import annotations

from kconnect_transforms.base import TRANSFORMS_PACKAGE, Plugin, R


class Filter(Plugin):
    """Kafka's Filter: returns None for every record it is applied to."""

    java_class_names = (f"{TRANSFORMS_PACKAGE}Filter",)

    def apply(self, record: R) -> R | None:
        """None: the record is dropped."""
        return None
