"""Java's string operations where Python's differ, for config values parsed as Kafka parses them."""

from __future__ import annotations


def java_split(text: str, separator: str) -> list[str]:
    """``text.split(separator)`` as Java does for a one-character literal: trailing empty parts dropped."""
    parts = text.split(separator)
    while parts and parts[-1] == "":
        parts.pop()
    return parts if parts else ([""] if text == "" else [])
