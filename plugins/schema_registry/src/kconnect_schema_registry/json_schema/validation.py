"""``json.fail.invalid.schema``: payloads checked against their JSON Schema, as Confluent's serdes do.

Confluent validates with everit (drafts 4 to 7) or jsonsKema (2019-09, 2020-12) before writing and
after reading; here the `jsonschema` library checks with the draft the schema's ``$schema`` names
(draft 7 when it names none). A payload the schema does not accept fails the record with
Confluent's words, "Validation error in JSON", and the violations found.
"""

from __future__ import annotations

from typing import Any

from jsonschema import Draft7Validator
from jsonschema.validators import validator_for
from kconnect.errors import DataError


class PayloadValidator:
    """The validator of one JSON Schema, built once and used for every payload written or read with it."""

    def __init__(self, schema: Any, ignore_modern_dialects: bool = False) -> None:
        # ignore.modern.dialects: a 2019-09 or 2020-12 schema is checked as draft 7, as Confluent does.
        cls = Draft7Validator if ignore_modern_dialects else validator_for(schema, default=Draft7Validator)
        # everit checks "format" too (date-time, email, ...); jsonschema does only when asked.
        self._validator = cls(schema, format_checker=cls.FORMAT_CHECKER)

    def check(self, node: Any) -> None:
        """Raise DataError listing what `node` violates, if anything."""
        errors = sorted(self._validator.iter_errors(node), key=lambda e: list(e.absolute_path))
        if errors:
            report = "; ".join(f"#/{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in errors[:10])
            raise DataError(f"Validation error in JSON, Error report: {report}")
