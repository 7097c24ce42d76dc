"""The REST listeners' TLS keys (`kconnect_rest.tls`): which keys apply, PEM stores, and the errors."""

from __future__ import annotations

import logging
import ssl
from pathlib import Path

import pytest
from kconnect.worker_config import ConfigFileError, RestListener, WorkerConfig
from kconnect_rest.tls import RestTlsSettings, check, client_verify

from tests.throwaway_ca import KEY_PASSWORD, Certificate, CertificateAuthority, pem_stores

SOURCE = "w.properties"


def https(**keys: str) -> dict[str, str]:
    """Worker properties with one https listener and `keys` under ``listeners.https.``."""
    return {"listeners": "https://127.0.0.1:0", **{f"listeners.https.{k}": v for k, v in keys.items()}}


def settings(props: dict[str, str]) -> RestTlsSettings:
    return RestTlsSettings.from_props(props, SOURCE)


def server_error(props: dict[str, str]) -> str:
    with pytest.raises(ConfigFileError) as info:
        settings(props).server_context()
    return str(info.value)


# --- listeners and the advertised URL ----------------------------------------------------------------------


def test_http_and_https_listeners_are_both_served() -> None:
    config = WorkerConfig.from_props({"listeners": "http://127.0.0.1:8083, HTTPS://[::1]:8443"})
    assert config.rest_listeners() == (
        RestListener("http", "127.0.0.1", 8083),
        RestListener("https", "::1", 8443),
    )


@pytest.mark.parametrize(
    ("props", "url"),
    [
        ({"listeners": "https://127.0.0.1:8443"}, "https://127.0.0.1:8443/"),
        ({"listeners": "https://127.0.0.1:8443,http://127.0.0.1:8083"}, "http://127.0.0.1:8083/"),
        (
            {
                "listeners": "http://127.0.0.1:8083,https://127.0.0.1:8443",
                "rest.advertised.listener": "HTTPS",
            },
            "https://127.0.0.1:8443/",
        ),
        (
            {"listeners": "https://a.example:8443", "rest.advertised.listener": "http"},
            "http://a.example:8443/",
        ),
        (
            {"listeners": "https://a.example:8443", "rest.advertised.port": "443"},
            "https://a.example:443/",
        ),
    ],
)
def test_the_advertised_scheme_and_listener(props: dict[str, str], url: str) -> None:
    assert WorkerConfig.from_props(props).advertised_url() == url


def test_an_advertised_listener_other_than_http_or_https_is_refused() -> None:
    with pytest.raises(ConfigFileError) as info:
        WorkerConfig.from_props({"rest.advertised.listener": "ftp"}, SOURCE)
    assert (
        str(info.value) == "w.properties: rest.advertised.listener: Invalid value ftp: expected http or https"
    )


# --- which keys apply --------------------------------------------------------------------------------------


def test_prefixed_keys_replace_the_workers_ssl_keys_all_or_nothing() -> None:
    props = {"ssl.keystore.location": "/kafka.pem", "ssl.client.auth": "required"}
    assert settings(props).values == props
    assert settings(props).prefix == ""
    prefixed = settings({**props, "listeners.https.ssl.keystore.location": "/rest.pem"})
    assert prefixed.prefix == "listeners.https."
    assert prefixed.values == {"ssl.keystore.location": "/rest.pem"}


def test_an_unknown_prefixed_key_is_an_error() -> None:
    with pytest.raises(ConfigFileError) as info:
        settings({"listeners.https.ssl.keystore.locaton": "/x"})
    assert str(info.value).startswith("w.properties: listeners.https.ssl.keystore.locaton: unknown key")


def test_an_http_only_worker_builds_no_ssl_context_even_with_ssl_keys_for_kafka() -> None:
    config = WorkerConfig.from_props({"ssl.keystore.type": "JKS", "ssl.keystore.location": "/kafka.jks"})
    assert client_verify(config) is True
    check(config)


# --- key stores ---------------------------------------------------------------------------------------------


def test_a_pem_keystore_file_with_key_and_chain(server_cert: Certificate) -> None:
    context = settings(https(**pem_stores(server_cert))).server_context()
    assert context.verify_mode == ssl.CERT_NONE
    assert (context.minimum_version, context.maximum_version) == (
        ssl.TLSVersion.TLSv1_2,
        ssl.TLSVersion.TLSv1_3,
    )


def test_the_workers_ssl_keys_serve_when_no_key_is_prefixed(server_cert: Certificate) -> None:
    props = {"listeners": "https://127.0.0.1:0", **pem_stores(server_cert)}
    settings(props).server_context()


def test_an_inline_key_and_chain(server_cert: Certificate) -> None:
    keys = {"ssl.keystore.type": "PEM", "ssl.keystore.key": server_cert.key_text}
    settings(https(**keys, **{"ssl.keystore.certificate.chain": server_cert.chain_text})).server_context()


def test_inline_pem_on_one_line_as_a_continued_properties_value_gives_it(server_cert: Certificate) -> None:
    def one_line(text: str) -> str:
        return " ".join(line.strip() for line in text.splitlines())

    keys = {
        "ssl.keystore.type": "PEM",
        "ssl.keystore.key": one_line(server_cert.key_text),
        "ssl.keystore.certificate.chain": one_line(server_cert.chain_text),
    }
    settings(https(**keys)).server_context()


def test_an_encrypted_key_takes_ssl_key_password(client_cert: Certificate) -> None:
    keys = pem_stores(client_cert)
    settings(https(**keys, **{"ssl.key.password": KEY_PASSWORD})).server_context()
    assert server_error(https(**keys)) == (
        f"w.properties: listeners.https.ssl.keystore.location: Failed to load PEM SSL keystore "
        f"{client_cert.keystore}: the private key is encrypted; set listeners.https.ssl.key.password"
    )
    wrong = server_error(https(**keys, **{"ssl.key.password": "nope"}))
    assert wrong.startswith(
        "w.properties: listeners.https.ssl.keystore.location: "
        f"Failed to load PEM SSL keystore {client_cert.keystore}"
    )
    assert "a wrong listeners.https.ssl.key.password" in wrong


@pytest.mark.parametrize(
    ("keystore_type", "shown"), [(None, "JKS (Kafka's default)"), ("PKCS12", "PKCS12"), ("JKS", "JKS")]
)
def test_a_keystore_that_is_not_pem_is_refused_naming_the_key(
    server_cert: Certificate, keystore_type: str | None, shown: str
) -> None:
    keys = {"ssl.keystore.location": str(server_cert.keystore)}
    if keystore_type is not None:
        keys["ssl.keystore.type"] = keystore_type
    assert server_error(https(**keys)) == (
        f"w.properties: listeners.https.ssl.keystore.type: {shown} is not supported: kconnect's REST "
        "listeners read PEM keystores only; set listeners.https.ssl.keystore.type=PEM and give the "
        "keystore as PEM"
    )


@pytest.mark.parametrize(
    ("extra", "key", "reason"),
    [
        (
            {"ssl.keystore.password": "pw"},
            "ssl.keystore.password",
            "SSL key store password cannot be specified with PEM format, only key password may be specified",
        ),
        (
            {"ssl.keystore.key": "k"},
            "ssl.keystore.key",
            "SSL private key is specified, but certificate chain is not specified.",
        ),
        (
            {"ssl.keystore.certificate.chain": "c"},
            "ssl.keystore.certificate.chain",
            "SSL certificate chain is specified, but private key is not specified",
        ),
        (
            {"ssl.keystore.key": "k", "ssl.keystore.certificate.chain": "c"},
            "ssl.keystore.key",
            "Both SSL key store location and separate private key are specified.",
        ),
    ],
)
def test_kafkas_pem_keystore_rules(
    server_cert: Certificate, extra: dict[str, str], key: str, reason: str
) -> None:
    assert (
        server_error(https(**pem_stores(server_cert), **extra))
        == f"w.properties: listeners.https.{key}: {reason}"
    )


def test_a_keystore_file_without_a_key_or_certificate(
    ca: CertificateAuthority, server_cert: Certificate
) -> None:
    no_key = server_error(https(**{"ssl.keystore.type": "PEM", "ssl.keystore.location": str(ca.certificate)}))
    assert no_key.endswith("expected one PEM private key, but found none")
    no_cert = server_error(
        https(**{"ssl.keystore.type": "PEM", "ssl.keystore.location": str(server_cert.key)})
    )
    assert no_cert.endswith("At least one certificate expected, but none found")


def test_a_missing_keystore_file_is_named(tmp_path: Path) -> None:
    missing = tmp_path / "absent.pem"
    keys = {"ssl.keystore.type": "PEM", "ssl.keystore.location": str(missing)}
    assert server_error(https(**keys)) == (
        "w.properties: listeners.https.ssl.keystore.location: "
        f"cannot read {missing}: No such file or directory"
    )


def test_an_https_listener_needs_a_keystore() -> None:
    message = server_error(https(**{"ssl.client.auth": "none"}))
    assert message.startswith(
        "w.properties: listeners.https.ssl.keystore.location: an https listener needs a key store"
    )


def test_a_key_that_is_not_the_certificates_is_refused(
    ca: CertificateAuthority, server_cert: Certificate
) -> None:
    other = ca.issue("other")
    keys = {
        "ssl.keystore.type": "PEM",
        "ssl.keystore.key": other.key_text,
        "ssl.keystore.certificate.chain": server_cert.chain_text,
    }
    message = server_error(https(**keys))
    assert message.startswith(
        "w.properties: listeners.https.ssl.keystore.key: Invalid PEM keystore configs: "
    )
    assert "a private key that is not the first certificate's" in message


# --- trust stores and client authentication ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "mode"), [("required", ssl.CERT_REQUIRED), ("requested", ssl.CERT_OPTIONAL)]
)
def test_client_auth_verifies_clients_with_the_truststore(
    ca: CertificateAuthority, server_cert: Certificate, value: str, mode: ssl.VerifyMode
) -> None:
    context = settings(https(**pem_stores(server_cert, ca), **{"ssl.client.auth": value})).server_context()
    assert context.verify_mode == mode
    assert [c["subject"] for c in context.get_ca_certs()] == [
        ((("commonName", "kconnect throwaway test CA"),),)
    ]


def test_inline_trusted_certificates(ca: CertificateAuthority, server_cert: Certificate) -> None:
    keys = {
        **pem_stores(server_cert),
        "ssl.truststore.type": "PEM",
        "ssl.truststore.certificates": ca.certificate_text,
    }
    assert len(settings(https(**keys)).client_context().get_ca_certs()) == 1


def test_an_invalid_client_auth_has_kafkas_text(server_cert: Certificate) -> None:
    assert server_error(https(**pem_stores(server_cert), **{"ssl.client.auth": "always"})) == (
        "w.properties: listeners.https.ssl.client.auth: Invalid value always for configuration "
        "ssl.client.auth: String must be one of: required, requested, none"
    )


@pytest.mark.parametrize(
    ("extra", "key", "reason"),
    [
        ({"ssl.truststore.type": "JKS"}, "ssl.truststore.type", "JKS is not supported"),
        (
            {"ssl.truststore.password": "pw"},
            "ssl.truststore.password",
            "SSL trust store password cannot be specified for PEM format.",
        ),
        (
            {"ssl.truststore.certificates": "c"},
            "ssl.truststore.certificates",
            "Both SSL trust store location and separate trust certificates are specified.",
        ),
    ],
)
def test_kafkas_pem_truststore_rules(
    ca: CertificateAuthority, server_cert: Certificate, extra: dict[str, str], key: str, reason: str
) -> None:
    message = server_error(https(**{**pem_stores(server_cert, ca), **extra}))
    assert message.startswith(f"w.properties: listeners.https.{key}: {reason}")


def test_a_truststore_without_certificates_is_refused(server_cert: Certificate) -> None:
    keys = {
        **pem_stores(server_cert),
        "ssl.truststore.type": "PEM",
        "ssl.truststore.location": str(server_cert.key),
    }
    assert server_error(https(**keys)).endswith("At least one certificate expected, but none found")


# --- protocols, Java-only keys, the client side ------------------------------------------------------------


@pytest.mark.parametrize(
    ("keys", "versions"),
    [
        ({"ssl.protocol": "TLSv1.2"}, (ssl.TLSVersion.TLSv1_2, ssl.TLSVersion.TLSv1_2)),
        ({"ssl.enabled.protocols": "TLSv1.3"}, (ssl.TLSVersion.TLSv1_3, ssl.TLSVersion.TLSv1_3)),
        (
            {"ssl.protocol": "TLS", "ssl.enabled.protocols": "TLSv1.3, TLSv1.2"},
            (ssl.TLSVersion.TLSv1_2, ssl.TLSVersion.TLSv1_3),
        ),
    ],
)
def test_protocol_versions(
    server_cert: Certificate, keys: dict[str, str], versions: tuple[ssl.TLSVersion, ...]
) -> None:
    context = settings(https(**pem_stores(server_cert), **keys)).server_context()
    assert (context.minimum_version, context.maximum_version) == versions


@pytest.mark.parametrize(
    ("keys", "key", "reason"),
    [
        (
            {"ssl.protocol": "SSLv3"},
            "ssl.protocol",
            "Invalid value SSLv3: kconnect supports TLS, TLSv1, TLSv1.1, TLSv1.2, TLSv1.3",
        ),
        (
            {"ssl.enabled.protocols": "TLSv1.2,SSLv3"},
            "ssl.enabled.protocols",
            "Invalid value TLSv1.2,SSLv3: SSLv3 is not one of",
        ),
        (
            {"ssl.enabled.protocols": "TLSv1,TLSv1.3"},
            "ssl.enabled.protocols",
            "Invalid value TLSv1,TLSv1.3: Python's ssl module enables a range",
        ),
        (
            {"ssl.protocol": "TLSv1.2", "ssl.enabled.protocols": "TLSv1.3"},
            "ssl.enabled.protocols",
            "Invalid value TLSv1.3: none of these is allowed by listeners.https.ssl.protocol=TLSv1.2",
        ),
        (
            {"ssl.cipher.suites": "TLS_AES_128_GCM_SHA256"},
            "ssl.cipher.suites",
            "is not supported: Python's ssl module takes OpenSSL cipher names",
        ),
        (
            {"ssl.engine.factory.class": "com.example.Factory"},
            "ssl.engine.factory.class",
            "is not supported: it names a Java class",
        ),
    ],
)
def test_keys_python_cannot_honour_are_errors(
    server_cert: Certificate, keys: dict[str, str], key: str, reason: str
) -> None:
    assert server_error(https(**pem_stores(server_cert), **keys)).startswith(
        f"w.properties: listeners.https.{key}: {reason}"
    )


def test_java_security_class_keys_are_logged_as_without_effect(
    server_cert: Certificate, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.INFO, logger="kconnect_rest.tls"):
        check(
            WorkerConfig.from_props(
                https(**pem_stores(server_cert), **{"ssl.keymanager.algorithm": "SunX509"})
            )
        )
    assert "listeners.https.ssl.keymanager.algorithm has no effect on the REST listeners" in caplog.text


def test_the_client_context_trusts_the_truststore_presents_the_keystore_and_checks_host_names(
    ca: CertificateAuthority, server_cert: Certificate
) -> None:
    config = WorkerConfig.from_props(https(**pem_stores(server_cert, ca)), SOURCE)
    context = client_verify(config)
    assert isinstance(context, ssl.SSLContext)
    assert context.check_hostname and context.verify_mode == ssl.CERT_REQUIRED
    assert len(context.get_ca_certs()) == 1
    no_check = settings(https(**pem_stores(server_cert, ca), **{"ssl.endpoint.identification.algorithm": ""}))
    assert not no_check.client_context().check_hostname


def test_an_advertised_https_url_alone_makes_the_client_use_the_ssl_keys(ca: CertificateAuthority) -> None:
    props = {
        "rest.advertised.listener": "https",
        "ssl.truststore.type": "PEM",
        "ssl.truststore.location": str(ca.certificate),
    }
    context = client_verify(WorkerConfig.from_props(props))
    assert isinstance(context, ssl.SSLContext)
    assert len(context.get_ca_certs()) == 1


def test_check_fails_at_start_up_naming_the_key(tmp_path: Path) -> None:
    config = WorkerConfig.from_props(
        https(**{"ssl.keystore.type": "PKCS12", "ssl.keystore.location": "/k.p12"}), SOURCE
    )
    with pytest.raises(
        ConfigFileError, match=r"listeners\.https\.ssl\.keystore\.type: PKCS12 is not supported"
    ):
        check(config)
