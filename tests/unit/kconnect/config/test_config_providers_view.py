"""What users see of configs with secrets: hidden PASSWORD values, kept [hidden] PUTs, validate answers."""

from __future__ import annotations

from kconnect.config.providers_view import as_sent, hide_passwords, keep_hidden, scrub
from kconnect.config.validation import ConfigInfo, ConfigInfos, ConfigValueInfo

KEYS = frozenset({"db.password", "ssl.key.password"})


def test_password_values_are_hidden_but_references_are_shown() -> None:
    config = {
        "db.password": "s3cret",
        "ssl.key.password": "${file:/s/ssl.properties:key}",
        "db.user": "admin",
    }
    assert hide_passwords(config, KEYS) == {
        "db.password": "[hidden]",
        "ssl.key.password": "${file:/s/ssl.properties:key}",
        "db.user": "admin",
    }


def test_a_put_of_hidden_keeps_the_stored_password() -> None:
    stored = {"db.password": "s3cret", "db.user": "admin"}
    sent = {"db.password": "[hidden]", "db.user": "[hidden]", "ssl.key.password": "[hidden]"}
    # Only PASSWORD keys, only when exactly [hidden], only when something is stored.
    assert keep_hidden(sent, stored, KEYS) == {
        "db.password": "s3cret",
        "db.user": "[hidden]",
        "ssl.key.password": "[hidden]",
    }
    assert keep_hidden({"db.password": "new"}, stored, KEYS) == {"db.password": "new"}


def _infos(value: str, errors: tuple[str, ...] = ()) -> ConfigInfos:
    return ConfigInfos(
        "Sink", len(errors), (), (ConfigInfo(None, ConfigValueInfo("file", value, (), errors, True)),)
    )


def test_validation_answers_with_what_was_sent() -> None:
    sent = {"file": "${directory:/run/secrets:path}"}
    resolved = {"file": "/data/out"}
    error = "Invalid value /data/out for configuration file: must end in .txt"
    shown = as_sent(_infos("/data/out", (error,)), sent, resolved)
    assert shown.configs[0].value == ConfigValueInfo(
        "file",
        "${directory:/run/secrets:path}",
        (),
        ("Invalid value ${directory:/run/secrets:path} for configuration file: must end in .txt",),
        True,
    )
    unchanged = _infos("x")
    assert as_sent(unchanged, {"file": "x"}, {"file": "x"}) is unchanged


def test_scrub_replaces_the_longest_secret_first() -> None:
    assert scrub("pw pw-long", {"pw", "pw-long"}) == "[hidden] [hidden]"
    assert scrub(None, {"x"}) is None and scrub("text", set()) == "text"
