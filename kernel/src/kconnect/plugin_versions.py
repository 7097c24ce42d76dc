"""Plugin versions ordered as Maven orders them: the order KIP-891 picks the newest by, and the order
`/connector-plugins` lists the versions of one class in (oldest first, as Kafka's ``PluginDesc``).

Kafka compares plugin versions with Maven's ``DefaultArtifactVersion``; `version_key` follows
Maven's ``ComparableVersion`` for the versions plugins carry: numbers compare as numbers, a
release is newer than its qualified pre-releases (``1.0-rc1`` < ``1.0``, ``3.6.1.Final`` is
``3.6.1``), and a missing version (``undefined``) is the oldest.
"""

from __future__ import annotations

import re

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
