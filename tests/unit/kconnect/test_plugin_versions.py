"""Plugin versions in Maven's order (KIP-891's newest, `/connector-plugins`' order of versions)."""

from __future__ import annotations

import pytest
from kconnect.plugin_versions import version_key


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        ("undefined", "0.1"),
        ("1.0-rc1", "1.0"),
        ("1.0-SNAPSHOT", "1.0"),
        ("1.0", "1.0.1"),
        ("4.2.0", "4.3.1"),
        ("9.9", "10.0"),
        ("3.6.0.Final", "3.6.1.Final"),
    ],
)
def test_versions_ordered_as_maven_orders_them(older: str, newer: str) -> None:
    assert version_key(older) < version_key(newer)


@pytest.mark.parametrize(("one", "same"), [("1", "1.0"), ("1.0", "1.0.0"), ("3.6.1.Final", "3.6.1")])
def test_equal_versions(one: str, same: str) -> None:
    assert version_key(one) == version_key(same)
