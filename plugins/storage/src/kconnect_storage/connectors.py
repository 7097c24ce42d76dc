"""The three storage sink connectors: Confluent's HDFS and S3 sinks, and one for any store URL.

Each is the same engine (`kconnect_storage.task`) with a different set of store keys: ``hdfs.url``
(HdfsSinkConnector), ``s3.bucket.name`` and ``store.url`` (S3SinkConnector), ``storage.url``
(StorageSinkConnector). Every task gets the same config; Kafka spreads the topic partitions.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from kconnect import ConfigDef, SinkConnector
from kconnect.config import ConfigException, ConfigValue

from kconnect_storage.config import (
    ROTATE_SCHEDULE_INTERVAL_MS_CONFIG,
    SinkSettings,
    define_sink_keys,
    schedule_needs_timezone,
)
from kconnect_storage.formats.config import define_format_keys
from kconnect_storage.naming import temp_directory
from kconnect_storage.partitioners.config import add_partitioner_errors, define_partitioner_keys
from kconnect_storage.refused import REFUSED
from kconnect_storage.stores.config import (
    define_hdfs_keys,
    define_s3_keys,
    define_storage_url_keys,
    store_problems,
)
from kconnect_storage.task import StorageSinkTask
from kconnect_storage.version import VERSION

_STORE_KEYS = {"hdfs": define_hdfs_keys, "s3": define_s3_keys, "storage": define_storage_url_keys}


def storage_config_def(kind: str) -> ConfigDef:
    """Every key of one connector: its store's, the engine's, the format's and the partitioner's."""
    config_def = _STORE_KEYS[kind](ConfigDef())
    config_def = define_sink_keys(config_def)
    config_def = define_format_keys(config_def, connector=kind)
    return define_partitioner_keys(config_def)


class HdfsSinkTask(StorageSinkTask):
    """The task of HdfsSinkConnector."""

    java_class_names: ClassVar[tuple[str, ...]] = ("io.confluent.connect.hdfs.HdfsSinkTask",)
    store_kind: ClassVar[str] = "hdfs"


class S3SinkTask(StorageSinkTask):
    """The task of S3SinkConnector."""

    java_class_names: ClassVar[tuple[str, ...]] = ("io.confluent.connect.s3.S3SinkTask",)
    store_kind: ClassVar[str] = "s3"


class _StorageSink(SinkConnector):
    """What the three connectors share; `task` says which store keys they take."""

    task: ClassVar[type[StorageSinkTask]] = StorageSinkTask

    @classmethod
    def version(cls) -> str:
        """The plugin's version."""
        return VERSION

    def start(self, config: Mapping[str, str]) -> None:
        """Check and keep the config."""
        REFUSED.check(config)
        SinkSettings.parse(config)
        schedule_problem = schedule_needs_timezone(config)
        if schedule_problem:
            raise ConfigException(schedule_problem, name=ROTATE_SCHEDULE_INTERVAL_MS_CONFIG)
        self.config = dict(config)

    def task_class(self) -> type[StorageSinkTask]:
        """The task writing the files."""
        return self.task

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        """`max_tasks` copies of the config."""
        return [dict(self.config) for _ in range(max_tasks)]

    def stop(self) -> None:
        """Nothing to release."""

    def validate(self, config: Mapping[str, str]) -> Mapping[str, ConfigValue]:
        """The keys' checks, the refused keys, then one request to the store."""
        definition = type(self).config_def
        assert definition is not None
        values = definition.validate(config)
        REFUSED.add_errors(values, config)
        add_partitioner_errors(config, values)
        schedule_problem = schedule_needs_timezone(config)
        if schedule_problem:
            values[ROTATE_SCHEDULE_INTERVAL_MS_CONFIG].add_error(schedule_problem)
        if any(v.errors for v in values.values()):
            return values
        kind = self.task.store_kind
        topics_dir = SinkSettings.parse(config).topics_dir
        for key, message in store_problems(kind, config, temp_directory(topics_dir)).items():
            values.setdefault(key, ConfigValue(key, config.get(key))).add_error(message)
        return values

    def alter_offsets(self, config: Mapping[str, str], offsets: Mapping[Any, Any]) -> bool:
        """Accept a KIP-875 alter or reset; the files decide where a partition resumes, so a task seeks
        past its committed files whatever the group's offset says (docs/storage.md)."""
        return True


class HdfsSinkConnector(_StorageSink):
    """Confluent's HDFS sink: topics into files on HDFS (over WebHDFS), exactly once."""

    java_class_names: ClassVar[tuple[str, ...]] = ("io.confluent.connect.hdfs.HdfsSinkConnector",)
    config_def: ClassVar[ConfigDef] = storage_config_def("hdfs")
    task: ClassVar[type[StorageSinkTask]] = HdfsSinkTask


class S3SinkConnector(_StorageSink):
    """Confluent's S3 sink: topics into objects of an S3 bucket (any S3-compatible store), exactly once."""

    java_class_names: ClassVar[tuple[str, ...]] = ("io.confluent.connect.s3.S3SinkConnector",)
    config_def: ClassVar[ConfigDef] = storage_config_def("s3")
    task: ClassVar[type[StorageSinkTask]] = S3SinkTask


class StorageSinkConnector(_StorageSink):
    """kconnect's storage sink for any store URL (``storage.url``): a local path, HDFS or S3."""

    config_def: ClassVar[ConfigDef] = storage_config_def("storage")
    task: ClassVar[type[StorageSinkTask]] = StorageSinkTask
