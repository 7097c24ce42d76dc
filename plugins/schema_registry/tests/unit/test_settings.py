"""The registry keys every converter takes: parsed, defaulted, refused when unsupported."""

from __future__ import annotations

from typing import Any

import pytest
from kconnect.config import ConfigException
from kconnect_schema_registry.config import RegistrySettings, serde_config_def


def settings(**configs: Any) -> RegistrySettings:
    props = {k.replace("_", "."): v for k, v in configs.items()}
    return RegistrySettings.from_parsed(serde_config_def().parse(props), props)


def test_several_urls_and_confluent_defaults() -> None:
    parsed = settings(schema_registry_url="http://a:8081/, http://b:8081")
    assert parsed.urls == ("http://a:8081", "http://b:8081")
    assert parsed.auto_register is True
    assert parsed.use_latest_version is False
    assert parsed.latest_compatibility_strict is True
    assert parsed.value_subject_strategy == "io.confluent.kafka.serializers.subject.TopicNameStrategy"
    assert parsed.user_info == ""


def test_user_info_is_used_only_with_the_user_info_source() -> None:
    assert settings(schema_registry_url="http://a", basic_auth_user_info="u:p").user_info == ""
    with_source = settings(
        schema_registry_url="http://a",
        **{"basic.auth.credentials.source": "USER_INFO", "basic.auth.user.info": "u:p"},
    )
    assert with_source.user_info == "u:p"


def test_user_info_without_a_colon_names_the_key() -> None:
    with pytest.raises(ConfigException, match=r"basic.auth.user.info must be in the form"):
        settings(
            schema_registry_url="http://a",
            **{"basic.auth.credentials.source": "USER_INFO", "basic.auth.user.info": "nopassword"},
        )


def test_the_password_is_hidden_in_the_parsed_config() -> None:
    parsed = serde_config_def().parse({"schema.registry.url": "http://a", "basic.auth.user.info": "u:secret"})
    assert "secret" not in repr(parsed["basic.auth.user.info"])


def test_a_missing_url_is_a_config_error() -> None:
    with pytest.raises(ConfigException, match=r"schema\.registry\.url"):
        serde_config_def().parse({})


@pytest.mark.parametrize("key", ["bearer.auth.credentials.source", "use.schema.id", "proxy.host"])
def test_unsupported_keys_are_refused_when_set(key: str) -> None:
    with pytest.raises(ConfigException, match=f"{key} is not supported by kconnect"):
        settings(schema_registry_url="http://a", **{key: "1"})


def test_only_pem_stores_are_accepted() -> None:
    with pytest.raises(ConfigException, match=r"truststore\.type"):
        settings(schema_registry_url="http://a", **{"schema.registry.ssl.truststore.type": "JKS"})
