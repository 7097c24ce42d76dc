"""The partitioner keys (Confluent's ``PartitionerConfig`` and ``directory.delim``) and the factories.

`define_partitioner_keys` adds the keys to a connector's `ConfigDef`; `partitioner_problems` gives
the checks that span keys (a time-based partitioner needs ``path.format``, ``locale``,
``timezone``...) with Confluent's texts, and `add_partitioner_errors` puts them on the validate
endpoint's values; `partitioner` and `timestamp_extractor` build the objects the sink uses.
"""

from __future__ import annotations

from collections.abc import Mapping, MutableMapping
from dataclasses import dataclass
from enum import Enum

from kconnect.config import (
    ConfigDef,
    ConfigException,
    ConfigType,
    ConfigValue,
    Importance,
    LambdaValidator,
    PluginClass,
    Width,
)

from kconnect_storage.partitioners import Partitioner
from kconnect_storage.partitioners.default import DefaultPartitioner
from kconnect_storage.partitioners.extractors import (
    RecordFieldTimestampExtractor,
    RecordTimestampExtractor,
    TimestampExtractor,
    WallclockTimestampExtractor,
)
from kconnect_storage.partitioners.field import FieldPartitioner
from kconnect_storage.partitioners.fields import path_segments
from kconnect_storage.partitioners.joda_format import JodaPattern
from kconnect_storage.partitioners.time_based import (
    DAY_MS,
    HOUR_MS,
    TimeBasedPartitioner,
    daily_path_format,
    hourly_path_format,
)
from kconnect_storage.partitioners.timezones import JodaZone, zone_for_id

PARTITIONER_CLASS_CONFIG = "partitioner.class"
PARTITION_FIELD_NAME_CONFIG = "partition.field.name"
PARTITION_DURATION_MS_CONFIG = "partition.duration.ms"
PATH_FORMAT_CONFIG = "path.format"
LOCALE_CONFIG = "locale"
TIMEZONE_CONFIG = "timezone"
TIMESTAMP_EXTRACTOR_CONFIG = "timestamp.extractor"
TIMESTAMP_FIELD_CONFIG = "timestamp.field"
DIRECTORY_DELIM_CONFIG = "directory.delim"

PARTITIONER_GROUP = "Partitioner"
STORAGE_PARTITIONER_PACKAGE = "io.confluent.connect.storage.partitioner."
#: Confluent's HDFS sink still ships these subclasses of the storage-common partitioners.
HDFS_PARTITIONER_PACKAGE = "io.confluent.connect.hdfs.partitioner."
PARTITIONER_INTERFACE = STORAGE_PARTITIONER_PACKAGE + "Partitioner"


class PartitionerKind(str, Enum):
    """The partitioners kconnect has, by Confluent's simple class name."""

    DEFAULT = "DefaultPartitioner"
    FIELD = "FieldPartitioner"
    TIME_BASED = "TimeBasedPartitioner"
    DAILY = "DailyPartitioner"
    HOURLY = "HourlyPartitioner"

    @property
    def time_based(self) -> bool:
        """Whether records go by time (TimeBased, Daily, Hourly)."""
        return self in (PartitionerKind.TIME_BASED, PartitionerKind.DAILY, PartitionerKind.HOURLY)


#: Every class name ``partitioner.class`` takes, with the kind it stands for.
PARTITIONER_CLASSES: dict[str, PartitionerKind] = {
    package + kind.value: kind
    for kind in PartitionerKind
    for package in (STORAGE_PARTITIONER_PACKAGE, HDFS_PARTITIONER_PACKAGE)
}

_EXTRACTOR_CLASS_PREFIX = STORAGE_PARTITIONER_PACKAGE + "TimeBasedPartitioner$"
#: ``timestamp.extractor`` values: Confluent's short names and the classes they stand for.
TIMESTAMP_EXTRACTORS: dict[str, str] = {name: name for name in ("Wallclock", "Record", "RecordField")} | {
    f"{_EXTRACTOR_CLASS_PREFIX}{name}TimestampExtractor": name
    for name in ("Wallclock", "Record", "RecordField")
}


def _check_field_names(name: str, value: object) -> None:
    """Confluent's ``PartitionFieldNameValidator``: no empty name, no empty segment of a dotted one."""
    for field_name in value if isinstance(value, list) else ():
        text = str(field_name)
        if not text.strip():
            raise ConfigException.invalid(name, text, "Field name cannot be null or empty")
        if any(not segment.strip() for segment in path_segments(text)):
            raise ConfigException.invalid(
                name, text, "Field name cannot contain an empty or whitespace-only path segment"
            )


def _check_timezone(name: str, value: object) -> None:
    """Confluent's ``TimezoneValidator``: blank passes (checked per partitioner), else a Joda zone id."""
    text = str(value or "").strip()
    if text:
        try:
            zone_for_id(text)
        except ValueError as e:
            raise ConfigException.invalid(name, value, str(e)) from e


def _check_extractor(name: str, value: object) -> None:
    if value not in TIMESTAMP_EXTRACTORS:
        raise ConfigException.invalid(
            name,
            value,
            f"Invalid timestamp extractor: {value}; kconnect has Wallclock, Record and RecordField "
            f"(or their class names {_EXTRACTOR_CLASS_PREFIX}<name>TimestampExtractor)",
        )


class _Dependents:
    """Confluent's ``PartitionerClassDependentsRecommender``: shows the keys the partitioner reads."""

    _SHOWN: Mapping[PartitionerKind, frozenset[str]] = {
        PartitionerKind.DEFAULT: frozenset(),
        PartitionerKind.FIELD: frozenset({PARTITION_FIELD_NAME_CONFIG}),
        PartitionerKind.TIME_BASED: frozenset(
            {PARTITION_DURATION_MS_CONFIG, PATH_FORMAT_CONFIG, LOCALE_CONFIG, TIMEZONE_CONFIG}
        ),
        PartitionerKind.DAILY: frozenset({LOCALE_CONFIG, TIMEZONE_CONFIG}),
        PartitionerKind.HOURLY: frozenset({LOCALE_CONFIG, TIMEZONE_CONFIG}),
    }

    def valid_values(self, name: str, parsed_config: Mapping[str, object]) -> list[object]:
        """No fixed choices."""
        return []

    def visible(self, name: str, parsed_config: Mapping[str, object]) -> bool:
        """Whether the configured partitioner reads `name` (an unknown class: shown)."""
        kind = PARTITIONER_CLASSES.get(str(parsed_config.get(PARTITIONER_CLASS_CONFIG)))
        return kind is None or name in self._SHOWN[kind]


_DEPENDENTS = _Dependents()


def define_partitioner_keys(config_def: ConfigDef) -> ConfigDef:
    """Add ``partitioner.class`` and the keys the partitioners read, with Confluent's defaults."""
    partitioner_classes = PluginClass(
        PARTITIONER_INTERFACE, {name: name for name in PARTITIONER_CLASSES}, others={}
    )
    dependents = (
        PARTITION_FIELD_NAME_CONFIG,
        PARTITION_DURATION_MS_CONFIG,
        PATH_FORMAT_CONFIG,
        LOCALE_CONFIG,
        TIMEZONE_CONFIG,
    )
    return (
        config_def.define(
            PARTITIONER_CLASS_CONFIG,
            type=ConfigType.CLASS,
            default=STORAGE_PARTITIONER_PACKAGE + PartitionerKind.DEFAULT.value,
            validator=partitioner_classes,
            importance=Importance.HIGH,
            documentation="Which directory a record goes to: DefaultPartitioner keeps Kafka's partitions "
            "(partition=<n>); FieldPartitioner names directories by the values of partition.field.name; "
            "TimeBasedPartitioner by the record's time in path.format, DailyPartitioner and "
            "HourlyPartitioner by its day or hour. Confluent's class names, in "
            "io.confluent.connect.storage.partitioner (or io.confluent.connect.hdfs.partitioner).",
            group=PARTITIONER_GROUP,
            order_in_group=1,
            width=Width.LONG,
            display_name="Partitioner Class",
            dependents=dependents,
        )
        .define(
            PARTITION_FIELD_NAME_CONFIG,
            type=ConfigType.LIST,
            default="",
            validator=LambdaValidator(
                _check_field_names, "Validate partition field names is not null or empty"
            ),
            importance=Importance.MEDIUM,
            documentation="The fields of the record's value FieldPartitioner names directories by "
            "(<field>=<value>, in this order); dots name nested fields (address.city).",
            group=PARTITIONER_GROUP,
            order_in_group=2,
            width=Width.NONE,
            display_name="Partition Field Name",
            recommender=_DEPENDENTS,
        )
        .define(
            PARTITION_DURATION_MS_CONFIG,
            type=ConfigType.LONG,
            default=-1,
            importance=Importance.MEDIUM,
            documentation="How many milliseconds of record time one directory of TimeBasedPartitioner "
            "holds; the default -1 is for the other partitioners.",
            group=PARTITIONER_GROUP,
            order_in_group=3,
            width=Width.LONG,
            display_name="Partition Duration (ms)",
            recommender=_DEPENDENTS,
        )
        .define(
            PATH_FORMAT_CONFIG,
            type=ConfigType.STRING,
            default="",
            importance=Importance.MEDIUM,
            documentation="TimeBasedPartitioner's directories: a Joda-Time DateTimeFormat pattern of "
            "the bucket's start, e.g. 'year'=YYYY/'month'=MM/'day'=dd/'hour'=HH gives "
            "year=2015/month=12/day=07/hour=15 (pattern letter z is not supported).",
            group=PARTITIONER_GROUP,
            order_in_group=4,
            width=Width.LONG,
            display_name="Path Format",
            recommender=_DEPENDENTS,
        )
        .define(
            LOCALE_CONFIG,
            type=ConfigType.STRING,
            default="",
            importance=Importance.MEDIUM,
            documentation="The language of month and day names in path.format (MMM, EEEE...), as "
            "Confluent reads it: a language code such as en or fr; a value with a country "
            "(en-US) is an unknown language to Java, which then prints English abbreviations.",
            group=PARTITIONER_GROUP,
            order_in_group=5,
            width=Width.LONG,
            display_name="Locale",
            recommender=_DEPENDENTS,
        )
        .define(
            TIMEZONE_CONFIG,
            type=ConfigType.STRING,
            default="",
            validator=LambdaValidator(
                _check_timezone, "Any timezone accepted by: class org.joda.time.DateTimeZone"
            ),
            importance=Importance.MEDIUM,
            documentation="The time zone of the time-based partitioners' buckets and directory names: "
            "an IANA id (America/Los_Angeles, Europe/Paris), UTC, or a fixed offset [+-]hh:mm.",
            group=PARTITIONER_GROUP,
            order_in_group=6,
            width=Width.LONG,
            display_name="Timezone",
            recommender=_DEPENDENTS,
        )
        .define(
            TIMESTAMP_EXTRACTOR_CONFIG,
            type=ConfigType.STRING,
            default="Wallclock",
            validator=LambdaValidator(_check_extractor, "Wallclock, Record or RecordField"),
            importance=Importance.MEDIUM,
            documentation="Where a record's time comes from, for the time-based partitioners and "
            "rotate.interval.ms: Wallclock (when it is written), Record (its Kafka timestamp) or "
            "RecordField (the value's timestamp.field).",
            group=PARTITIONER_GROUP,
            order_in_group=7,
            width=Width.LONG,
            display_name="Timestamp Extractor",
        )
        .define(
            TIMESTAMP_FIELD_CONFIG,
            type=ConfigType.STRING,
            default="timestamp",
            importance=Importance.MEDIUM,
            documentation="The field of the record's value RecordField reads (dots for nested fields): "
            "an INT32, INT64 or Timestamp field, epoch milliseconds, or an ISO-8601 string.",
            group=PARTITIONER_GROUP,
            order_in_group=8,
            width=Width.LONG,
            display_name="Record Field for Timestamp Extractor",
        )
        .define(
            DIRECTORY_DELIM_CONFIG,
            type=ConfigType.STRING,
            default="/",
            importance=Importance.MEDIUM,
            documentation="What separates directory levels in partition paths.",
            group=PARTITIONER_GROUP,
            order_in_group=9,
            width=Width.LONG,
            display_name="Directory Delimiter",
        )
    )


@dataclass(frozen=True, slots=True)
class PartitionerSettings:
    """The partitioner keys, parsed."""

    kind: PartitionerKind
    field_names: tuple[str, ...]
    partition_duration_ms: int
    path_format: str
    locale: str
    timezone: str
    timestamp_extractor: str
    timestamp_field: str
    directory_delim: str

    @classmethod
    def parse(cls, config: Mapping[str, str]) -> PartitionerSettings:
        """Parse the keys one by one (raises `ConfigException` naming a bad one)."""
        values = define_partitioner_keys(ConfigDef()).parse(config)
        field_names = values[PARTITION_FIELD_NAME_CONFIG]
        return cls(
            kind=PARTITIONER_CLASSES[str(values[PARTITIONER_CLASS_CONFIG])],
            field_names=tuple(str(name) for name in field_names) if isinstance(field_names, list) else (),
            partition_duration_ms=int(str(values[PARTITION_DURATION_MS_CONFIG])),
            path_format=str(values[PATH_FORMAT_CONFIG] or ""),
            locale=str(values[LOCALE_CONFIG] or ""),
            timezone=str(values[TIMEZONE_CONFIG] or ""),
            timestamp_extractor=TIMESTAMP_EXTRACTORS[str(values[TIMESTAMP_EXTRACTOR_CONFIG])],
            timestamp_field=str(values[TIMESTAMP_FIELD_CONFIG] or ""),
            directory_delim=str(values[DIRECTORY_DELIM_CONFIG] or ""),
        )

    @property
    def effective_duration_ms(self) -> int:
        """``partition.duration.ms``, or a day or an hour for Daily and Hourly."""
        return {PartitionerKind.DAILY: DAY_MS, PartitionerKind.HOURLY: HOUR_MS}.get(
            self.kind, self.partition_duration_ms
        )

    @property
    def effective_path_format(self) -> str:
        """``path.format``, or Daily's and Hourly's fixed formats."""
        if self.kind is PartitionerKind.DAILY:
            return daily_path_format(self.directory_delim)
        if self.kind is PartitionerKind.HOURLY:
            return hourly_path_format(self.directory_delim)
        return self.path_format


def _problems(settings: PartitionerSettings) -> list[ConfigException]:
    """What the chosen partitioner finds wrong with the keys, in Confluent's order and texts."""
    if settings.kind is PartitionerKind.FIELD:
        if not settings.field_names:
            return [
                ConfigException(
                    "Partition field name cannot be null or empty when using FieldPartitioner.",
                    name=PARTITION_FIELD_NAME_CONFIG,
                )
            ]
        return []
    if not settings.kind.time_based:
        return []
    problems: list[ConfigException] = []
    duration = settings.effective_duration_ms
    if duration <= 0:  # Confluent lets 0 through, to fail each record dividing by it
        problems.append(
            ConfigException.invalid(
                PARTITION_DURATION_MS_CONFIG, duration, "Partition duration needs to be a positive."
            )
        )
    path_format = settings.effective_path_format
    if not path_format.strip() or path_format == settings.directory_delim:
        problems.append(
            ConfigException.invalid(PATH_FORMAT_CONFIG, path_format, "Path format cannot be empty.")
        )
    else:
        try:
            JodaPattern(_without_trailing_delim(path_format, settings.directory_delim))
        except ValueError as e:
            problems.append(ConfigException.invalid(PATH_FORMAT_CONFIG, path_format, str(e)))
    if not settings.locale.strip():
        problems.append(ConfigException.invalid(LOCALE_CONFIG, settings.locale, "Locale cannot be empty."))
    if not settings.timezone.strip():
        problems.append(
            ConfigException.invalid(TIMEZONE_CONFIG, settings.timezone, "Timezone cannot be empty.")
        )
    if settings.timestamp_extractor == "RecordField" and not settings.timestamp_field.strip():
        problems.append(
            ConfigException.invalid(
                TIMESTAMP_FIELD_CONFIG,
                settings.timestamp_field,
                "The field to extract cannot be null or empty.",
            )
        )
    return problems


def _without_trailing_delim(path_format: str, delim: str) -> str:
    return path_format[: -len(delim)] if delim and path_format.endswith(delim) else path_format


def partitioner_problems(config: Mapping[str, str]) -> list[ConfigException]:
    """The cross-key problems of `config`'s partitioner keys, each naming its key.

    Empty when a key is itself invalid: its own validator reports that.
    """
    try:
        settings = PartitionerSettings.parse(config)
    except ConfigException:
        return []
    return _problems(settings)


def add_partitioner_errors(config: Mapping[str, str], values: MutableMapping[str, ConfigValue]) -> None:
    """Put `partitioner_problems` on the validate endpoint's per-key values (called by the connectors)."""
    for problem in partitioner_problems(config):
        value = values.get(problem.name or PARTITIONER_CLASS_CONFIG)
        if value is not None:
            value.add_error(problem.message)


def _parse_checked(config: Mapping[str, str]) -> PartitionerSettings:
    settings = PartitionerSettings.parse(config)
    problems = _problems(settings)
    if problems:
        raise problems[0]
    return settings


def _extractor(settings: PartitionerSettings) -> TimestampExtractor:
    if settings.timestamp_extractor == "Record":
        return RecordTimestampExtractor()
    if settings.timestamp_extractor == "RecordField":
        return RecordFieldTimestampExtractor(settings.timestamp_field)
    return WallclockTimestampExtractor()


def time_zone(config: Mapping[str, str]) -> JodaZone | None:
    """The ``timezone`` key's zone, None when blank (for ``rotate.schedule.interval.ms``)."""
    text = str(config.get(TIMEZONE_CONFIG, "")).strip()
    if not text:
        return None
    try:
        return zone_for_id(text)
    except ValueError as e:
        raise ConfigException.invalid(TIMEZONE_CONFIG, text, str(e)) from e


def partitioner(config: Mapping[str, str]) -> Partitioner:
    """The partitioner `config` asks for; `ConfigException` with Confluent's text if it cannot be built."""
    settings = _parse_checked(config)
    delim = settings.directory_delim
    if settings.kind is PartitionerKind.FIELD:
        return FieldPartitioner(settings.field_names, delim)
    if not settings.kind.time_based:
        return DefaultPartitioner(delim)
    return TimeBasedPartitioner(
        partition_duration_ms=settings.effective_duration_ms,
        path_format=settings.effective_path_format,
        locale=settings.locale,
        zone=zone_for_id(settings.timezone.strip()),
        extractor=_extractor(settings),
        directory_delim=delim,
    )


def timestamp_extractor(config: Mapping[str, str]) -> TimestampExtractor:
    """The time ``rotate.interval.ms`` measures: the time-based partitioners' ``timestamp.extractor``,
    the wall clock for the others (as Confluent's HDFS sink)."""
    settings = _parse_checked(config)
    return _extractor(settings) if settings.kind.time_based else WallclockTimestampExtractor()
