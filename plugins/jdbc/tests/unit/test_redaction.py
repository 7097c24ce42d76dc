"""redacted_error_text (trim.sensitive.log): only the driver's class, SQLSTATE and error code survive."""

from __future__ import annotations

from kconnect_jdbc.connection import redacted_error_text
from kconnect_jdbc.sink.config import SinkSettings
from sqlalchemy.exc import IntegrityError


class DriverError(Exception):
    """A driver exception with a SQLSTATE, as psycopg's are."""

    def __init__(self, message: str, sqlstate: str | None) -> None:
        super().__init__(message)
        self.sqlstate = sqlstate


def test_the_message_and_the_statement_are_left_out() -> None:
    wrapped = IntegrityError(
        "INSERT INTO t VALUES ('secret')", {"v": "secret"}, DriverError("secret", "23505")
    )
    text = redacted_error_text(wrapped)
    assert text == f"<redacted> [class={__name__}.DriverError; SQLState=23505; errorCode=0]"


def test_a_sqlstate_that_is_not_five_letters_or_digits_is_not_echoed() -> None:
    assert "SQLState=<invalid>;" in redacted_error_text(DriverError("x", "secret value"))
    assert "SQLState=null;" in redacted_error_text(DriverError("x", None))
    assert redacted_error_text(ValueError(1205, "Lock wait timeout")).endswith("; errorCode=1205]")


def test_the_key_defaults_to_false() -> None:
    assert SinkSettings.parse({"connection.url": "x.db"}).trim_sensitive_log is False
    assert SinkSettings.parse({"connection.url": "x.db", "trim.sensitive.log": "true"}).trim_sensitive_log
