"""The Schema Registry keys every registry-backed converter takes (Confluent's serde config).

`serde_config_def` defines them with Confluent's names, defaults and texts; `RegistrySettings.from_parsed`
reads a parsed config into the values the client and the converters use. Keys Confluent defines but
kconnect does not implement are refused when set (`UNSUPPORTED`), never silently ignored.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from kconnect.config import ConfigException
from kconnect.config.configdef import ConfigDef, ConfigType, Importance
from kconnect.config.validators import CaseInsensitiveValidString, ValidString
from kconnect.config.values import Password

from kconnect_schema_registry.subjects import SUBJECT_NAME_STRATEGIES, TOPIC_NAME_STRATEGY

SCHEMA_REGISTRY_URL = "schema.registry.url"
SSL_PREFIX = "schema.registry.ssl."

#: Confluent keys kconnect refuses when they are set (any value), with the reason.
UNSUPPORTED: Mapping[str, str] = {
    "bearer.auth.credentials.source": "OAuth bearer tokens are not implemented; use basic auth or TLS",
    "bearer.auth.token": "OAuth bearer tokens are not implemented; use basic auth or TLS",
    "use.schema.id": "pinning a schema id is not implemented; use use.latest.version",
    "schema.registry.ssl.keystore.password": "only PEM key stores (keystore.type=PEM) are implemented",
    "schema.registry.ssl.truststore.password": "only PEM trust stores (truststore.type=PEM) are implemented",
    "proxy.host": "a proxy for the registry is not implemented",
    "proxy.port": "a proxy for the registry is not implemented",
}


def serde_config_def(base: ConfigDef | None = None) -> ConfigDef:
    """`base` (or a new ConfigDef) with Confluent's registry client and serializer keys."""
    group = "Schema Registry"
    return (
        (base if base is not None else ConfigDef())
        .define(
            SCHEMA_REGISTRY_URL,
            type=ConfigType.LIST,
            importance=Importance.HIGH,
            documentation="Comma-separated list of URLs for schema registry instances that can be used to "
            "register or look up schemas.",
            group=group,
        )
        .define(
            "auto.register.schemas",
            type=ConfigType.BOOLEAN,
            default=True,
            importance=Importance.MEDIUM,
            documentation="Specify if the Serializer should attempt to register the Schema with Schema "
            "Registry",
            group=group,
        )
        .define(
            "use.latest.version",
            type=ConfigType.BOOLEAN,
            default=False,
            importance=Importance.LOW,
            documentation="Specify if the Serializer should use the latest subject version for serialization",
            group=group,
        )
        .define(
            "latest.compatibility.strict",
            type=ConfigType.BOOLEAN,
            default=True,
            importance=Importance.LOW,
            documentation="If true, and use.latest.version is true, check that the latest subject version "
            "is backward compatible with the schema of the object being serialized.",
            group=group,
        )
        .define(
            "latest.cache.ttl.sec",
            type=ConfigType.LONG,
            default=-1,
            importance=Importance.LOW,
            documentation="TTL in seconds for caching the latest schema of a subject; -1 caches it for "
            "the life of the converter.",
            group=group,
        )
        .define(
            "normalize.schemas",
            type=ConfigType.BOOLEAN,
            default=False,
            importance=Importance.LOW,
            documentation="Whether to normalize schemas, which generally ignores ordering when it is "
            "not significant",
            group=group,
        )
        .define(
            "max.schemas.per.subject",
            type=ConfigType.INT,
            default=1000,
            importance=Importance.LOW,
            documentation="Maximum number of schemas to create or cache locally.",
            group=group,
        )
        .define(
            "key.subject.name.strategy",
            type=ConfigType.STRING,
            default=TOPIC_NAME_STRATEGY,
            validator=ValidString(SUBJECT_NAME_STRATEGIES),
            importance=Importance.MEDIUM,
            documentation="Determines how to construct the subject name under which the key schema is "
            "registered with the schema registry.",
            group=group,
        )
        .define(
            "value.subject.name.strategy",
            type=ConfigType.STRING,
            default=TOPIC_NAME_STRATEGY,
            validator=ValidString(SUBJECT_NAME_STRATEGIES),
            importance=Importance.MEDIUM,
            documentation="Determines how to construct the subject name under which the value schema is "
            "registered with the schema registry.",
            group=group,
        )
        .define(
            "basic.auth.credentials.source",
            type=ConfigType.STRING,
            default="URL",
            validator=CaseInsensitiveValidString.in_("URL", "USER_INFO"),
            importance=Importance.MEDIUM,
            documentation="Specify how to pick the credentials for the Basic authentication header: URL "
            "(the user info of schema.registry.url) or USER_INFO (basic.auth.user.info).",
            group=group,
        )
        .define(
            "basic.auth.user.info",
            type=ConfigType.PASSWORD,
            default="",
            importance=Importance.MEDIUM,
            documentation="Specify the user info for the Basic authentication in the form of "
            "{username}:{password}",
            group=group,
        )
        .define(
            "schema.registry.basic.auth.user.info",
            type=ConfigType.PASSWORD,
            default="",
            importance=Importance.LOW,
            documentation="Deprecated name of basic.auth.user.info.",
            group=group,
        )
        .define(
            "max.retries",
            type=ConfigType.INT,
            default=3,
            importance=Importance.LOW,
            documentation="Maximum number of retries of a request to the registry that failed with a "
            "network error or a retriable status (408, 429, 5xx).",
            group=group,
        )
        .define(
            "retries.wait.ms",
            type=ConfigType.INT,
            default=1000,
            importance=Importance.LOW,
            documentation="Time to wait before the first retry; it doubles with each retry.",
            group=group,
        )
        .define(
            "retries.max.wait.ms",
            type=ConfigType.INT,
            default=20000,
            importance=Importance.LOW,
            documentation="Maximum time to wait between retries.",
            group=group,
        )
        .define(
            "http.read.timeout.ms",
            type=ConfigType.INT,
            default=30000,
            importance=Importance.LOW,
            documentation="Timeout in ms of one HTTP request to the registry.",
            group=group,
        )
        .define(
            SSL_PREFIX + "truststore.type",
            type=ConfigType.STRING,
            default="PEM",
            validator=CaseInsensitiveValidString.in_("PEM"),
            importance=Importance.MEDIUM,
            documentation="The file format of the trust store file (PEM only).",
            group=group,
        )
        .define(
            SSL_PREFIX + "truststore.location",
            type=ConfigType.STRING,
            default="",
            importance=Importance.HIGH,
            documentation="The location of the PEM file of CA certificates that sign the registry's "
            "certificate; empty: the system's trusted CAs.",
            group=group,
        )
        .define(
            SSL_PREFIX + "truststore.certificates",
            type=ConfigType.PASSWORD,
            default="",
            importance=Importance.MEDIUM,
            documentation="Trusted certificates in PEM format, instead of a truststore.location.",
            group=group,
        )
        .define(
            SSL_PREFIX + "keystore.type",
            type=ConfigType.STRING,
            default="PEM",
            validator=CaseInsensitiveValidString.in_("PEM"),
            importance=Importance.MEDIUM,
            documentation="The file format of the key store file (PEM only).",
            group=group,
        )
        .define(
            SSL_PREFIX + "keystore.location",
            type=ConfigType.STRING,
            default="",
            importance=Importance.HIGH,
            documentation="The location of a PEM file holding the client's private key and certificate "
            "chain, for mutual TLS.",
            group=group,
        )
        .define(
            SSL_PREFIX + "keystore.key",
            type=ConfigType.PASSWORD,
            default="",
            importance=Importance.MEDIUM,
            documentation="The client's private key in PEM format, instead of a keystore.location.",
            group=group,
        )
        .define(
            SSL_PREFIX + "keystore.certificate.chain",
            type=ConfigType.PASSWORD,
            default="",
            importance=Importance.MEDIUM,
            documentation="The client's certificate chain in PEM format, with keystore.key.",
            group=group,
        )
        .define(
            SSL_PREFIX + "key.password",
            type=ConfigType.PASSWORD,
            default="",
            importance=Importance.HIGH,
            documentation="The password of the private key, if it is encrypted.",
            group=group,
        )
        .define(
            SSL_PREFIX + "endpoint.identification.algorithm",
            type=ConfigType.STRING,
            default="https",
            validator=CaseInsensitiveValidString.in_("https"),
            importance=Importance.LOW,
            documentation="The endpoint identification algorithm to validate the server hostname using "
            "the server certificate (https only: the hostname is always checked).",
            group=group,
        )
    )


def _secret(value: object) -> str:
    if isinstance(value, Password):
        return value.value
    return "" if value is None else str(value)


@dataclass(frozen=True)
class RegistrySettings:
    """The registry and serializer settings of one converter, parsed."""

    urls: tuple[str, ...]
    auto_register: bool
    use_latest_version: bool
    latest_compatibility_strict: bool
    latest_cache_ttl_sec: int
    normalize: bool
    cache_capacity: int
    key_subject_strategy: str
    value_subject_strategy: str
    user_info: str
    max_retries: int
    retries_wait_ms: int
    retries_max_wait_ms: int
    request_timeout_ms: int
    truststore_location: str
    truststore_certificates: str
    keystore_location: str
    keystore_key: str
    keystore_certificate_chain: str
    key_password: str

    @classmethod
    def from_parsed(cls, parsed: Mapping[str, Any], raw: Mapping[str, Any]) -> RegistrySettings:
        """Settings from a config parsed by `serde_config_def`; `raw` is checked for refused keys."""
        for key, reason in UNSUPPORTED.items():
            if raw.get(key) not in (None, ""):
                raise ConfigException(f"{key} is not supported by kconnect: {reason}", name=key)
        urls = tuple(str(url).strip().rstrip("/") for url in parsed[SCHEMA_REGISTRY_URL] if str(url).strip())
        if not urls:
            raise ConfigException(
                f'Missing required configuration "{SCHEMA_REGISTRY_URL}" which has no default value.',
                name=SCHEMA_REGISTRY_URL,
            )
        source = str(parsed["basic.auth.credentials.source"]).upper()
        user_info = ""
        if source == "USER_INFO":
            user_info = _secret(parsed["basic.auth.user.info"]) or _secret(
                parsed["schema.registry.basic.auth.user.info"]
            )
            if ":" not in user_info:
                raise ConfigException(
                    "basic.auth.user.info must be in the form {username}:{password} when "
                    "basic.auth.credentials.source is USER_INFO",
                    name="basic.auth.user.info",
                )
        return cls(
            urls=urls,
            auto_register=bool(parsed["auto.register.schemas"]),
            use_latest_version=bool(parsed["use.latest.version"]),
            latest_compatibility_strict=bool(parsed["latest.compatibility.strict"]),
            latest_cache_ttl_sec=int(parsed["latest.cache.ttl.sec"]),
            normalize=bool(parsed["normalize.schemas"]),
            cache_capacity=int(parsed["max.schemas.per.subject"]),
            key_subject_strategy=str(parsed["key.subject.name.strategy"]),
            value_subject_strategy=str(parsed["value.subject.name.strategy"]),
            user_info=user_info,
            max_retries=int(parsed["max.retries"]),
            retries_wait_ms=int(parsed["retries.wait.ms"]),
            retries_max_wait_ms=int(parsed["retries.max.wait.ms"]),
            request_timeout_ms=int(parsed["http.read.timeout.ms"]),
            truststore_location=str(parsed[SSL_PREFIX + "truststore.location"]),
            truststore_certificates=_secret(parsed[SSL_PREFIX + "truststore.certificates"]),
            keystore_location=str(parsed[SSL_PREFIX + "keystore.location"]),
            keystore_key=_secret(parsed[SSL_PREFIX + "keystore.key"]),
            keystore_certificate_chain=_secret(parsed[SSL_PREFIX + "keystore.certificate.chain"]),
            key_password=_secret(parsed[SSL_PREFIX + "key.password"]),
        )

    def subject_strategy(self, is_key: bool) -> str:
        """The subject name strategy for keys or values."""
        return self.key_subject_strategy if is_key else self.value_subject_strategy
