"""The transformations and predicates a Java connector's config names, and validate's errors for those
that are not Java classes.

A Java connector's records are transformed in its Java task by Kafka's own ``TransformationChain``
(``RecordStages.java``), so every ``transforms.<alias>.type`` and ``predicates.<alias>.type`` must be
a class Kafka's isolation loads: one of Kafka's SMTs (``connect-transforms``, on the facade's
classpath), or a transformation or predicate on ``plugin.path``, by class name or Kafka's alias.
kconnect's Python ports of Kafka's SMTs answer to the same names; for a Java connector those names
mean Kafka's Java classes. A name with no Java class (a Python-only transformation) is an error of its
``.type`` key. Pure: what the JVM loads is asked through the `JavaStages` callable.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping

from kconnect.config import ConfigValue

TRANSFORMS = "transforms"
PREDICATES = "predicates"
TRANSFORMATION = "transformation"
PREDICATE = "predicate"

#: Which of some names Kafka's isolation loads, by kind: ``{"transformation": [...], "predicate": [...]}``.
JavaStages = Callable[[Collection[str]], Mapping[str, Collection[str]]]


def not_java(kind: str, name: str) -> str:
    """The error of a ``.type`` key of a Java connector's config naming `name`, no Java `kind`."""
    return (
        f"{name} is not a Java {kind} (neither one of Kafka's nor one on plugin.path): a Java "
        f"connector's records are transformed in its Java task, which cannot run kconnect's Python {kind}s"
    )


def named_stages(config: Mapping[str, str | None]) -> dict[str, tuple[str, str]]:
    """Each ``.type`` key of the aliases ``transforms`` and ``predicates`` list: the kind it must be
    and the name it gives. An alias without its ``.type`` key is left to the framework's validation."""
    named: dict[str, tuple[str, str]] = {}
    for list_key, kind in ((TRANSFORMS, TRANSFORMATION), (PREDICATES, PREDICATE)):
        for alias in (config.get(list_key) or "").split(","):
            key = f"{list_key}.{alias.strip()}.type"
            name = (config.get(key) or "").strip()
            if alias.strip() and name:
                named[key] = (kind, name)
    return named


def stage_errors(config: Mapping[str, str | None], java_stages: JavaStages) -> dict[str, ConfigValue]:
    """A ConfigValue with the error `not_java` for each ``.type`` key naming no Java class of its kind."""
    named = named_stages(config)
    if not named:
        return {}
    loaded = java_stages(sorted({name for _, name in named.values()}))
    return {
        key: ConfigValue(key, config.get(key), [], [not_java(kind, name)], True)
        for key, (kind, name) in named.items()
        if name not in loaded.get(kind, ())
    }
