"""Unit tests of kconnect_java.maven without Maven Central: the pom a fetch writes, a folder made once,
and a failed ``mvn`` (a stand-in script on PATH) reported with its log."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

import pytest
from kconnect_java import maven


def fake_mvn(folder: Path, body: str) -> None:
    """Put an executable ``mvn`` running `body` (sh) first on PATH for the test."""
    script = folder / "mvn"
    script.write_text("#!/bin/sh\n" + textwrap.dedent(body), encoding="utf-8")
    script.chmod(0o755)


def test_a_transitive_pom_has_dependencies_with_their_exclusions() -> None:
    pom = maven._pom(
        "converter", ["io.apicurio:converter:2.6", "a:b:1"], ["org.apache.kafka:*"], transitive=True
    )
    assert "<artifactId>converter</artifactId><version>1</version>" not in pom
    assert "<groupId>io.apicurio</groupId><artifactId>converter</artifactId><version>2.6</version>" in pom
    exclusion = "<exclusion><groupId>org.apache.kafka</groupId><artifactId>*</artifactId></exclusion>"
    assert pom.count(exclusion) == 2, "each dependency excludes what is asked"
    assert "<dependencies>" in pom and "artifactItem" not in pom


def test_a_pom_that_is_not_transitive_names_artifact_items_with_their_type_and_classifier() -> None:
    pom = maven._pom(
        "debezium",
        ["io.debezium:debezium-connector-postgres:3.6.1.Final:tar.gz:plugin"],
        [],
        transitive=False,
    )
    assert (
        "<artifactItem><groupId>io.debezium</groupId><artifactId>debezium-connector-postgres</artifactId>"
        "<version>3.6.1.Final</version><type>tar.gz</type><classifier>plugin</classifier></artifactItem>"
    ) in pom
    assert "<dependencies>" not in pom


def test_a_coordinate_without_a_version_or_exclusions_without_dependencies_are_refused(
    tmp_path: Path,
) -> None:
    with pytest.raises(ValueError, match="'a:b' is not group:artifact:version"):
        maven.fetch(["a:b"], tmp_path / "lib")
    with pytest.raises(ValueError, match="not transitive"):
        maven.fetch(["a:b:1"], tmp_path / "lib", exclusions=["c:*"], transitive=False)
    assert not (tmp_path / "lib").exists()


def test_a_folder_is_made_once_and_renamed_into_place_when_complete(tmp_path: Path) -> None:
    made: list[Path] = []

    def make(partial: Path) -> None:
        made.append(partial)
        (partial / "a.jar").write_text("jar", encoding="utf-8")

    destination = tmp_path / "cache" / "lib"
    assert maven.cached_folder(destination, make) == destination
    assert maven.cached_folder(destination, make) == destination
    assert made == [tmp_path / "cache" / "lib.partial"], "the second call finds the folder"
    assert sorted(p.name for p in destination.iterdir()) == ["a.jar"]
    assert not made[0].exists()


def test_an_interrupted_attempt_leaves_no_folder_and_the_next_starts_again(tmp_path: Path) -> None:
    def fail(partial: Path) -> None:
        (partial / "half.jar").write_text("half", encoding="utf-8")
        raise OSError("interrupted")

    destination = tmp_path / "lib"
    with pytest.raises(OSError, match="interrupted"):
        maven.cached_folder(destination, fail)
    assert not destination.exists()
    maven.cached_folder(destination, lambda partial: (partial / "whole.jar").touch())
    assert sorted(p.name for p in destination.iterdir()) == ["whole.jar"]


def test_a_failed_mvn_raises_with_the_tail_of_its_log_kept_in_the_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_mvn(tmp_path, 'echo "$@"\necho "[ERROR] Could not resolve a:b:1"\nexit 1\n')
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    destination = tmp_path / "lib"
    with pytest.raises(maven.MavenError) as failed:
        maven.fetch(["a:b:1"], destination, transitive=False)
    log = tmp_path / "lib.partial" / maven.LOG_NAME
    assert f"mvn exited with 1 fetching a:b:1; see {log}" in str(failed.value)
    assert str(failed.value).endswith("[ERROR] Could not resolve a:b:1")
    assert "dependency:copy -DoutputDirectory=" in log.read_text(encoding="utf-8")
    assert not destination.exists()


def test_without_maven_on_path_the_error_says_what_it_was_needed_for(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(
        maven.MavenError, match=r"Maven \('mvn'\) is not on PATH; it is needed once for fetching a:b:1"
    ):
        maven.fetch(["a:b:1"], tmp_path / "lib")


def test_the_cache_root_is_kconnect_cache_else_the_default_else_the_users(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.delenv("KCONNECT_CACHE", raising=False)
    assert maven.cache_root() == tmp_path / "xdg" / "kconnect"
    assert maven.cache_root(tmp_path / "repo" / ".cache") == tmp_path / "repo" / ".cache"
    monkeypatch.setenv("KCONNECT_CACHE", str(tmp_path / "ci"))
    assert maven.cache_root(tmp_path / "repo" / ".cache") == tmp_path / "ci"
