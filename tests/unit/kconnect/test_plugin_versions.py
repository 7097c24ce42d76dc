"""Plugin versions in Maven's order (KIP-891's newest, `/connector-plugins`' order of versions), and
the Maven version ranges of ``connector.plugin.version``."""

from __future__ import annotations

import re

import pytest
from kconnect.plugin_versions import VersionRange, not_found_message, version_key, version_requirement


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


# KIP-891 ranges: each row checked against Maven's VersionRange (maven-artifact 3.9.15, Kafka 4.3.1's)
# through Kafka's PluginUtils.connectorVersionRequirement, as a plain version becomes a hard one.
@pytest.mark.parametrize(
    ("spec", "shown", "inside", "outside"),
    [
        ("[4.0,5.0)", "[4.0,5.0)", ["4.0", "4.3.1", "4.99"], ["3.9.1", "5.0", "5.0.0"]),
        ("[4.3.1]", "[4.3.1,4.3.1]", ["4.3.1", "4.3.1.0"], ["4.3.0", "4.3.2"]),
        ("4.3.1", "[4.3.1,4.3.1]", ["4.3.1"], ["4.2.0", "4.3.2"]),
        (" [ 4.0 , 5.0 ) ", "[4.0,5.0)", ["4.3.1"], ["5.0"]),
        ("(,4.0],[4.3,)", "(,4.0],[4.3,)", ["3.0", "4.0", "4.3", "9"], ["4.1", "4.2.9"]),
        ("(4.0,)", "(4.0,)", ["4.0.1"], ["4.0", "3.9"]),
        ("[1.0-rc1,1.0]", "[1.0-rc1,1.0]", ["1.0-rc1", "1.0-rc2", "1.0"], ["1.0-beta1", "1.0.1"]),
        ("[1.0,1]", "[1.0,1]", ["1"], ["1.0.1"]),
    ],
)
def test_version_ranges_as_maven_reads_them(
    spec: str, shown: str, inside: list[str], outside: list[str]
) -> None:
    requirement = version_requirement(spec)
    assert requirement is not None
    assert str(requirement) == shown
    assert [v for v in inside if requirement.contains(v)] == inside
    assert [v for v in outside if requirement.contains(v)] == []


@pytest.mark.parametrize("spec", [None, "", "  ", "latest"])
def test_no_requirement_means_the_newest(spec: str | None) -> None:
    assert version_requirement(spec) is None


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("[1.0", "Unbounded range: [1.0"),
        ("(1.0)", "Single version must be surrounded by []: (1.0)"),
        ("(1.0,1.0]", "Range defies version ordering: (1.0,1.0]"),
        ("[2.0,1.0]", "Range defies version ordering: [2.0,1.0]"),
        ("[1.0,2.0),3.0", "Only fully-qualified sets allowed in multiple set scenario: [1.0,2.0),3.0"),
        ("[2.0,3.0),[1.0,1.5]", "Ranges overlap: [2.0,3.0),[1.0,1.5]"),
    ],
)
def test_maven_refuses_what_it_cannot_parse(spec: str, message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        version_requirement(spec)


def test_the_newest_version_within_the_range_is_picked() -> None:
    available = ["4.2.0", "4.3.1", "3.9.1", "5.0.0", "4.3.1-rc1"]
    assert VersionRange.newest(_range("[4.0,5.0)"), available) == "4.3.1"
    assert VersionRange.newest(_range("[4.0,4.3.1)"), available) == "4.3.1-rc1"
    assert VersionRange.newest(_range("(,4.0)"), available) == "3.9.1"
    assert VersionRange.newest(_range("[6.0,)"), available) is None


def test_an_unmatched_range_is_worded_as_kafka_words_it() -> None:
    message = not_found_message("org.example.Sink", _range("[5.0,6.0)"), ["4.3.1", "4.2.0"])
    assert message == (
        "Plugin org.example.Sink not found that matches the version range [5.0,6.0), "
        "available versions: [4.2.0, 4.3.1]"
    )


def _range(spec: str) -> VersionRange:
    requirement = version_requirement(spec)
    assert requirement is not None
    return requirement
