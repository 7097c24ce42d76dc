"""What users see of a config that holds secrets: REST answers, validation answers, status traces.

Pure functions over plain mappings, used by the REST controllers and the herder:

* `hide_passwords`: a PASSWORD key's value is shown as ``[hidden]``, unless it is a config-provider
  reference, which is not a secret and is shown as written (a GET→PUT round trip keeps it).
* `keep_hidden`: a PUT that sends exactly ``[hidden]`` for a PASSWORD key keeps the stored value,
  so a script that PUTs back what it got from a GET does not overwrite a password with ``[hidden]``.
* `as_sent`: a validation answer computed from the resolved config, showing what the user sent.
* `scrub`: a trace with the secret values in it replaced by ``[hidden]``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Mapping

from kconnect.config.providers_resolver import has_variable
from kconnect.config.validation import ConfigInfo, ConfigInfos
from kconnect.config.values import HIDDEN


def hide_passwords(config: Mapping[str, str], password_keys: Collection[str]) -> dict[str, str]:
    """`config` with each PASSWORD key's value shown as ``[hidden]``, references shown as written."""
    return {
        key: HIDDEN if key in password_keys and not has_variable(value) else value
        for key, value in config.items()
    }


def keep_hidden(
    sent: Mapping[str, str], stored: Mapping[str, str], password_keys: Collection[str]
) -> dict[str, str]:
    """`sent` with each PASSWORD key whose value is exactly ``[hidden]`` given back its `stored` value.

    A key not in `stored` keeps ``[hidden]`` as its value: there is nothing to keep.
    """
    return {
        key: stored[key] if key in password_keys and value == HIDDEN and key in stored else value
        for key, value in sent.items()
    }


def as_sent(
    infos: ConfigInfos, sent: Mapping[str, str | None], resolved: Mapping[str, str | None]
) -> ConfigInfos:
    """`infos`, validated from `resolved`, showing the value the user `sent` for each resolved key.

    The value of a key whose reference was resolved is the reference; in its errors, Kafka's
    ``Invalid value <value> for configuration <key>`` names the reference, not the resolved value.
    """
    changed = {key for key, value in sent.items() if resolved.get(key) != value}
    if not changed:
        return infos
    return dataclasses.replace(
        infos, configs=tuple(_as_sent(info, sent, resolved, changed) for info in infos.configs)
    )


def _as_sent(
    info: ConfigInfo, sent: Mapping[str, str | None], resolved: Mapping[str, str | None], changed: set[str]
) -> ConfigInfo:
    value = info.value
    if value is None or value.name not in changed:
        return info
    shown, hidden = sent[value.name], resolved[value.name]
    errors = tuple(
        error.replace(
            f"Invalid value {hidden} for configuration {value.name}",
            f"Invalid value {shown} for configuration {value.name}",
        )
        for error in value.errors
    )
    return dataclasses.replace(info, value=dataclasses.replace(value, value=shown, errors=errors))


def scrub(text: str | None, secrets: Collection[str]) -> str | None:
    """`text` with every occurrence of each of `secrets` replaced by ``[hidden]`` (longest first)."""
    if not text:
        return text
    for secret in sorted((s for s in secrets if s), key=len, reverse=True):
        text = text.replace(secret, HIDDEN)
    return text
