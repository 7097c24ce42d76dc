"""Plugin versions ordered as Maven orders them: the order KIP-891 picks the newest by, and the order
`/connector-plugins` lists the versions of one class in (oldest first, as Kafka's ``PluginDesc``);
and the Maven version ranges a ``connector.plugin.version`` value may give (`version_requirement`).

Kafka compares plugin versions with Maven's ``DefaultArtifactVersion``; `version_key` follows
Maven's ``ComparableVersion`` for the versions plugins carry: numbers compare as numbers, a
release is newer than its qualified pre-releases (``1.0-rc1`` < ``1.0``, ``3.6.1.Final`` is
``3.6.1``), and a missing version (``undefined``) is the oldest.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from kconnect.errors import PluginError

#: Maven's well-known qualifiers, oldest first; a release (no qualifier, ``ga``, ``final``) sits at "".
_QUALIFIERS = ("alpha", "beta", "milestone", "rc", "snapshot", "", "sp")
_ALIASES = {"a": "alpha", "b": "beta", "m": "milestone", "cr": "rc", "ga": "", "final": "", "release": ""}


_Item = tuple[int, int, str]


def version_key(version: str) -> tuple[_Item, ...]:
    """A sort key: ``sorted(versions, key=version_key)`` lists them oldest first, as Maven does."""
    if version in ("", "undefined"):
        return ((-1, 0, ""),)
    release = (1, _QUALIFIERS.index(""), "")
    items: list[_Item] = []
    for token in re.findall(r"\d+|[A-Za-z]+", version.lower()):
        if token.isdigit():
            items.append((2, int(token), ""))
            continue
        while items and items[-1] == (2, 0, ""):
            items.pop()  # 1.0-rc1 is 1-rc-1, as Maven normalizes it
        word = _ALIASES.get(token, token)
        known = word in _QUALIFIERS
        items.append((1, _QUALIFIERS.index(word) if known else len(_QUALIFIERS), "" if known else word))
    # Trailing zeros and release qualifiers do not make a version newer (1.0 == 1 == 1.0.Final).
    while items and items[-1] in ((2, 0, ""), release):
        items.pop()
    # What follows the last item compares as a release: 1-rc < 1 < 1.1, 1 < 1-sp.
    return (*items, release)


@dataclass(frozen=True)
class Restriction:
    """One interval of a Maven version range (Maven's ``Restriction``); a missing bound is open."""

    lower: str | None
    lower_inclusive: bool
    upper: str | None
    upper_inclusive: bool

    def contains(self, version: str) -> bool:
        """Whether `version` lies in the interval, compared as Maven compares versions."""
        key = version_key(version)
        if self.lower is not None:
            lower = version_key(self.lower)
            if lower > key or (lower == key and not self.lower_inclusive):
                return False
        if self.upper is not None:
            upper = version_key(self.upper)
            if upper < key or (upper == key and not self.upper_inclusive):
                return False
        return True

    def __str__(self) -> str:
        """As Maven's ``Restriction.toString``: ``[4.3.1]`` reads back as ``[4.3.1,4.3.1]``."""
        lower, upper = self.lower or "", self.upper or ""
        return f"{'[' if self.lower_inclusive else '('}{lower},{upper}{']' if self.upper_inclusive else ')'}"


@dataclass(frozen=True)
class VersionRange:
    """A Maven version range with restrictions (Maven's ``VersionRange``), as KIP-891 reads a
    ``*.plugin.version`` value: ``[4.0,5.0)``, ``[4.3.1]``, ``(,4.0],[4.3,)``."""

    restrictions: tuple[Restriction, ...]

    def contains(self, version: str) -> bool:
        """Whether some restriction holds `version`."""
        return any(restriction.contains(version) for restriction in self.restrictions)

    def newest(self, versions: Iterable[str]) -> str | None:
        """The newest of `versions` in the range (Maven's order), or None: what Kafka picks."""
        inside = [version for version in versions if self.contains(version)]
        return max(inside, key=version_key) if inside else None

    def __str__(self) -> str:
        """As Maven's ``VersionRange.toString``, which Kafka's messages show."""
        return ",".join(str(restriction) for restriction in self.restrictions)


def version_requirement(spec: str | None) -> VersionRange | None:
    """The range a ``connector.plugin.version`` value asks for (Kafka's
    ``PluginUtils.connectorVersionRequirement``): None for no value, a blank one or ``latest`` (the
    newest version); a plain version is a hard requirement, ``4.3.1`` meaning ``[4.3.1]``.

    Raises ValueError with Maven's message for a value Maven cannot parse (the key's validator
    reports it at validate).
    """
    if spec is None or spec == "latest" or not spec.strip():
        return None
    spec = spec.strip()
    restrictions = _restrictions(spec)
    return VersionRange(restrictions or _restrictions(f"[{spec}]"))


def _restrictions(spec: str) -> tuple[Restriction, ...]:
    """The restrictions of `spec` as Maven's ``VersionRange.createFromVersionSpec`` reads them; none
    for a plain version."""
    found: list[Restriction] = []
    process = spec
    while process.startswith(("[", "(")):
        ends = [index for index in (process.find(")"), process.find("]")) if index >= 0]
        if not ends:
            raise ValueError(f"Unbounded range: {spec}")
        end = min(ends)
        restriction = _restriction(process[: end + 1])
        previous = found[-1].upper if found else None
        if previous is not None and (
            restriction.lower is None or version_key(restriction.lower) < version_key(previous)
        ):
            raise ValueError(f"Ranges overlap: {spec}")
        found.append(restriction)
        process = process[end + 1 :].strip()
        if process.startswith(","):
            process = process[1:].strip()
    if process and found:
        raise ValueError(f"Only fully-qualified sets allowed in multiple set scenario: {spec}")
    return tuple(found)


def _restriction(spec: str) -> Restriction:
    lower_inclusive, upper_inclusive = spec.startswith("["), spec.endswith("]")
    inner = spec[1:-1].strip()
    if "," not in inner:
        if not (lower_inclusive and upper_inclusive):
            raise ValueError(f"Single version must be surrounded by []: {spec}")
        return Restriction(inner, True, inner, True)
    low, high = (part.strip() or None for part in inner.split(",", 1))
    if low is not None and high is not None:
        lower, upper = version_key(low), version_key(high)
        if upper < lower or (upper == lower and not (lower_inclusive and upper_inclusive)):
            raise ValueError(f"Range defies version ordering: {spec}")
    return Restriction(low, lower_inclusive, high, upper_inclusive)


class PluginVersionError(PluginError):
    """No installed version of a connector class is in the config's range (Kafka's
    ``VersionedPluginLoadingException``): the message is Kafka's, `available` the versions there are,
    oldest first."""

    def __init__(self, class_name: str, requirement: VersionRange, available: Sequence[str]) -> None:
        """Words the error as Kafka does (`not_found_message`)."""
        self.available = sorted(available, key=version_key)
        super().__init__(not_found_message(class_name, requirement, self.available))


def not_found_message(class_name: str, requirement: VersionRange, available: Iterable[str]) -> str:
    """Kafka's text when no version of `class_name` is in the range (``VersionedPluginLoadingException``)."""
    listed = ", ".join(sorted(available, key=version_key))
    return (
        f"Plugin {class_name} not found that matches the version range {requirement}, "
        f"available versions: [{listed}]"
    )
