"""Turns the records a source task's `poll` returned into what the producer sends.

The source loop (and ``kconnect test``, `kconnect.runtime.dry_run`) calls `SourceRecordPreparer.prepare`
for each record: the transformation chain, then the key, value and header converters. A record that
fails a step goes to the task's `ErrorHandler` (retried, reported, then skipped or failing the task,
as the connector's ``errors.*`` keys say); a dropped or skipped record is None.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass

from kconnect.records import Headers, SourceBatch, SourceRecord
from kconnect.runtime.error_handling import ErrorHandler, Stage, StageError
from kconnect.runtime.task_plugins import TaskPlugins

#: A record ready to send: as transformed, then its key, value and headers as bytes.
Prepared = tuple[SourceRecord, bytes | None, bytes | None, list[tuple[str, bytes]]]


@dataclass(frozen=True, slots=True)
class PreparedBatch:
    """A `SourceBatch` ready to send: its records' keys, values and headers as bytes, in columns.

    A column that is None is None for every record (no key, the producer's timestamp, no
    headers); records dropped after an error are left out of every column.
    """

    keys: Sequence[bytes | None] | None
    values: Sequence[bytes | None]
    timestamps: Sequence[int | None] | None
    headers: Sequence[list[tuple[str, bytes]]] | None


class SourceRecordPreparer:
    """Transforms and converts polled records for one source task."""

    def __init__(self, plugins: TaskPlugins, errors: ErrorHandler) -> None:
        self._plugins = plugins
        self._errors = errors

    def prepare(self, original: SourceRecord) -> Prepared | None:
        """`original` transformed and converted; None when it was dropped or skipped after an error.

        Raises ConnectError ("Tolerance exceeded in error handler") when the policy does not
        tolerate its failure.
        """
        try:
            return self._transform_and_convert(original)
        except StageError as failed:
            return self._recover(failed, original)

    def prepare_all(self, records: list[SourceRecord]) -> list[Prepared | None]:
        """`prepare` of each record, in order, converted inside the loop where nothing transforms them.

        A poll is up to thousands of records, and `prepare`'s three calls per record were a tenth
        of a source's CPU per record; a record that fails a step goes through `prepare`'s error
        handling as if `prepare` had been called for it.
        """
        plugins = self._plugins
        if plugins.transforms:
            return [self.prepare(record) for record in records]
        # `_convert` inlined, its converters looked up once per poll: a call and four attribute
        # lookups per record were 8 % of a source's instructions per record.
        key_of = plugins.key_converter.from_connect_data
        value_of = plugins.value_converter.from_connect_data
        prepared: list[Prepared | None] = []
        append = prepared.append
        for record in records:
            topic, headers = record.topic, record.headers
            try:
                key = key_of(topic, record.key_schema, record.key, headers)
            except Exception as exc:
                append(self._recover(self._plugins.converter_error(Stage.KEY_CONVERTER, exc), record))
                continue
            try:
                value = value_of(topic, record.value_schema, record.value, headers)
            except Exception as exc:
                append(self._recover(self._plugins.converter_error(Stage.VALUE_CONVERTER, exc), record))
                continue
            if len(headers):
                try:
                    append((record, key, value, self._wire_headers(topic, headers)))
                except StageError as failed:
                    append(self._recover(failed, record))
            else:
                append((record, key, value, []))
        return prepared

    def prepare_batch(self, batch: SourceBatch) -> PreparedBatch:
        """`batch`'s records converted column by column (nothing transforms a batch).

        A record the converters fail on goes through `prepare` as `batch.record(i)`, with its error
        handling, and is left out when that drops it. Converters are given one `Headers` for the
        whole batch: should one add a header to it, the batch is prepared record by record instead,
        so each record gets its own.
        """
        topic = batch.topic
        plugins = self._plugins
        scratch = Headers()
        try:
            if batch.keys is None and batch.headers is None:
                value_of = plugins.value_converter.from_connect_data
                schema = batch.value_schema
                values = [value_of(topic, schema, value, scratch) for value in batch.values]
                if not len(scratch):
                    return PreparedBatch(None, values, batch.timestamps, None)
        except Exception:
            pass  # some record failed: the record-by-record path below finds which, and handles it
        return self._prepare_records(batch)

    def _prepare_records(self, batch: SourceBatch) -> PreparedBatch:
        keys: list[bytes | None] = []
        values: list[bytes | None] = []
        timestamps: list[int | None] = []
        headers: list[list[tuple[str, bytes]]] = []
        for ready in self.prepare_all(batch.records()):
            if ready is not None:
                record, key, value, wire_headers = ready
                keys.append(key)
                values.append(value)
                timestamps.append(record.timestamp)
                headers.append(wire_headers)
        return PreparedBatch(keys, values, timestamps, headers)

    def _recover(self, failed: StageError, original: SourceRecord) -> Prepared | None:
        """The error handler's answer to `original` failing a step: retried, skipped or raised."""
        retry = functools.partial(self._transform_and_convert, original)
        return self._errors.recover(failed, retry, source_record=original)

    def _transform_and_convert(self, original: SourceRecord) -> Prepared | None:
        record = self._plugins.transform(original) if self._plugins.transforms else original
        if record is None:
            return None
        assert isinstance(record, SourceRecord)
        return (record, *self._convert(record))

    def _convert(self, record: SourceRecord) -> tuple[bytes | None, bytes | None, list[tuple[str, bytes]]]:
        topic = record.topic
        headers = record.headers
        plugins = self._plugins
        try:
            key = plugins.key_converter.from_connect_data(topic, record.key_schema, record.key, headers)
        except Exception as exc:
            raise self._plugins.converter_error(Stage.KEY_CONVERTER, exc) from exc
        try:
            value = plugins.value_converter.from_connect_data(
                topic, record.value_schema, record.value, headers
            )
        except Exception as exc:
            raise self._plugins.converter_error(Stage.VALUE_CONVERTER, exc) from exc
        return key, value, self._wire_headers(topic, headers) if len(headers) else []

    def _wire_headers(self, topic: str, headers: Headers) -> list[tuple[str, bytes]]:
        """`headers` through the header converter; a failure raises the header stage's StageError."""
        convert = self._plugins.header_converter.from_connect_header
        try:
            return [(h.key, convert(topic, h.key, h.schema, h.value) or b"") for h in headers]
        except Exception as exc:
            raise self._plugins.converter_error(Stage.HEADER_CONVERTER, exc) from exc
