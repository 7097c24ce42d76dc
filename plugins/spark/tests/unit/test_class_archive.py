"""Which class-data archive a worker's Spark JVM uses, and the key that turns it off."""

from __future__ import annotations

from pathlib import Path

import pytest
from kconnect.worker_config import ConfigFileError
from kconnect_spark.class_archive import archive_path, cache_dir, driver_java_options, enabled


@pytest.mark.parametrize(("raw", "expected"), [(None, True), ("true", True), (" FALSE ", False)])
def test_the_archive_is_on_unless_the_worker_says_false(raw: str | None, expected: bool) -> None:
    props = {} if raw is None else {"executor.spark.class.archive": raw}
    assert enabled(props, "worker.properties") is expected


def test_a_value_other_than_true_or_false_names_the_file_and_key() -> None:
    with pytest.raises(ConfigFileError) as error:
        enabled({"executor.spark.class.archive": "yes"}, "worker.properties")
    assert str(error.value) == (
        "worker.properties: executor.spark.class.archive: invalid value 'yes': must be true or false"
    )


def test_archives_live_in_the_cache_folder_and_differ_by_class_path(tmp_path: Path) -> None:
    environ = {"XDG_CACHE_HOME": str(tmp_path), "PATH": "/usr/bin"}
    plain = archive_path({}, environ)
    with_jars = archive_path({"spark.jars": "/opt/extra.jar"}, environ)
    assert plain.parent == cache_dir(environ) == tmp_path / "kconnect"
    assert plain.name.startswith("spark-") and plain.suffix == ".jsa"
    assert with_jars != plain
    assert archive_path({}, environ) == plain


def test_an_existing_archive_is_added_after_the_users_own_driver_options(tmp_path: Path) -> None:
    archive = tmp_path / "spark.jsa"
    conf = {"spark.driver.extraJavaOptions": "-Dmine=1"}
    assert driver_java_options(conf, archive) == {}
    archive.write_bytes(b"archive")
    options = driver_java_options(conf, archive)["spark.driver.extraJavaOptions"]
    assert options.startswith("-Dmine=1 ")
    assert f"-XX:SharedArchiveFile={archive}" in options.split()
