"""How the converters reach the registry: TLS, basic auth, several URLs, against real registries.

The converter is AvroConverter (the keys are the same for all three: `kconnect_schema_registry.config`).
Each test writes a record and reads it back, which registers a schema and fetches it by id, so both
kinds of request go through the connection under test.
"""

from __future__ import annotations

import socket
import uuid
from typing import Any

import pytest
from kconnect.config import ConfigException
from kconnect.data.schema import SchemaBuilder
from kconnect.data.struct import Struct
from kconnect.errors import DataError, RetriableError
from kconnect_schema_registry.avro.converter import AvroConverter

from tests.throwaway_ca import CertificateAuthority

pytestmark = pytest.mark.integration

SCHEMA = SchemaBuilder.struct().name("conn.Check").field("n", SchemaBuilder.int32().build()).build()


def round_trip(configs: dict[str, str]) -> int:
    """Write one record to a new topic and read it back; return the value read."""
    converter = AvroConverter()
    converter.configure({**configs, "max.retries": "0"}, False)
    try:
        topic = f"conn-{uuid.uuid4().hex[:8]}"
        data = converter.from_connect_data(topic, SCHEMA, Struct(SCHEMA).put("n", 42))
        read = converter.to_connect_data(topic, data)
        assert isinstance(read.value, Struct)
        return int(read.value.get("n"))
    finally:
        converter.close()


def closed_port_url() -> str:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{probe.getsockname()[1]}/apis/ccompat/v7"


def test_https_with_the_registry_ca_as_trust_store(schema_registry_tls: Any) -> None:
    assert schema_registry_tls.url.startswith("https://")
    configs = {
        "schema.registry.url": schema_registry_tls.url,
        "schema.registry.ssl.truststore.type": "PEM",
        "schema.registry.ssl.truststore.location": str(schema_registry_tls.tls.ca),
    }
    assert round_trip(configs) == 42


def test_https_with_inline_pem_certificates(schema_registry_tls: Any) -> None:
    configs = {
        "schema.registry.url": schema_registry_tls.url,
        "schema.registry.ssl.truststore.certificates": schema_registry_tls.tls.ca.read_text(),
    }
    assert round_trip(configs) == 42


def test_https_without_trusting_the_registry_ca_is_a_data_error_naming_the_certificate(
    schema_registry_tls: Any,
) -> None:
    """A certificate check fails the same way every time: a DataError, not retried."""
    with pytest.raises(DataError, match=r"(?i)TLS handshake.*certificate verify failed") as failure:
        round_trip({"schema.registry.url": schema_registry_tls.url})
    assert schema_registry_tls.url in str(failure.value)


def test_client_key_stores_load_from_a_pem_file_and_inline_with_an_encrypted_key(
    schema_registry_tls: Any, ca: CertificateAuthority
) -> None:
    """The client's key and chain are loaded and offered in the handshake (Apicurio's build cannot
    require client certificates, so this shows they load and do not break the connection)."""
    plain = ca.issue("converter-client")
    encrypted = ca.issue("converter-client-encrypted", password="key-pw")
    trust = {
        "schema.registry.url": schema_registry_tls.url,
        "schema.registry.ssl.truststore.location": str(schema_registry_tls.tls.ca),
    }
    from_file = {**trust, "schema.registry.ssl.keystore.location": str(plain.keystore)}
    inline = {
        **trust,
        "schema.registry.ssl.keystore.key": encrypted.key.read_text(),
        "schema.registry.ssl.keystore.certificate.chain": encrypted.certificate.read_text(),
        "schema.registry.ssl.key.password": "key-pw",
    }
    assert round_trip(from_file) == 42
    assert round_trip(inline) == 42


def test_basic_auth_from_user_info(schema_registry_basic_auth: Any) -> None:
    configs = {
        "schema.registry.url": schema_registry_basic_auth.url,
        "basic.auth.credentials.source": "USER_INFO",
        "basic.auth.user.info": "registry-user:registry-pw",
    }
    assert round_trip(configs) == 42


def test_basic_auth_from_the_url(schema_registry_basic_auth: Any) -> None:
    url = schema_registry_basic_auth.url.replace("http://", "http://registry-user:registry-pw@")
    assert round_trip({"schema.registry.url": url}) == 42


def test_a_wrong_password_is_a_data_error_naming_401_without_the_password(
    schema_registry_basic_auth: Any,
) -> None:
    configs = {
        "schema.registry.url": schema_registry_basic_auth.url,
        "basic.auth.credentials.source": "USER_INFO",
        "basic.auth.user.info": "registry-user:not-the-password",
    }
    with pytest.raises(DataError, match="HTTP 401") as failure:
        round_trip(configs)
    assert "not-the-password" not in str(failure.value)


def test_no_credentials_against_a_registry_that_wants_them(schema_registry_basic_auth: Any) -> None:
    with pytest.raises(DataError, match="HTTP 401"):
        round_trip({"schema.registry.url": schema_registry_basic_auth.url})


def test_the_next_url_answers_when_the_first_is_down(schema_registry: Any) -> None:
    assert round_trip({"schema.registry.url": f"{closed_port_url()},{schema_registry.url}"}) == 42


def test_every_url_down_is_retriable_and_names_the_registries() -> None:
    urls = f"{closed_port_url()},{closed_port_url()}"
    with pytest.raises(RetriableError, match="unreachable") as failure:
        round_trip({"schema.registry.url": urls})
    assert urls in str(failure.value)


def test_user_info_source_without_user_info_is_a_config_error() -> None:
    with pytest.raises(ConfigException, match=r"basic\.auth\.user\.info must be in the form"):
        round_trip({"schema.registry.url": closed_port_url(), "basic.auth.credentials.source": "USER_INFO"})
