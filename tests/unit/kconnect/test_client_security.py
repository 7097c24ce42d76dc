"""SASL and SSL settings: Kafka's JAAS line, PEM stores, and the rules Kafka's clients apply."""

from __future__ import annotations

import ssl

import pytest
from kconnect.security import (
    SecurityConfigError,
    normalize_pem,
    parse_jaas_config,
    sasl_credentials,
    security_kwargs,
    security_problems,
    ssl_context,
)

from tests.throwaway_ca import KEY_PASSWORD, Certificate, CertificateAuthority

PLAIN = "org.apache.kafka.common.security.plain.PlainLoginModule"
SCRAM = "org.apache.kafka.common.security.scram.ScramLoginModule"


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        (f'{PLAIN} required username="alice" password="alice-secret";', ("alice", "alice-secret")),
        (f"{SCRAM} REQUIRED username='bob' password='a \"quoted\" one';", ("bob", 'a "quoted" one')),
        (f'{SCRAM} required\n  username="c"\n  password="back\\\\slash";', ("c", "back\\slash")),
        (f'/* a comment */ {PLAIN} optional username=u // trailing\n password="p";', ("u", "p")),
    ],
)
def test_credentials_come_from_a_plain_or_scram_login_line(line: str, expected: tuple[str, str]) -> None:
    assert sasl_credentials(line) == expected


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("", "Login module not specified in JAAS config"),
        (f'{PLAIN} required username="u"', "JAAS config entry not terminated by semi-colon"),
        (f'{PLAIN} mandatory username="u";', "Invalid login module control flag 'mandatory' in JAAS config"),
        (f"{PLAIN} required username=;", "Value not specified for key 'username' in JAAS config"),
        (
            f"{PLAIN} required; {SCRAM} required;",
            "JAAS config property contains 2 login modules, should be 1",
        ),
    ],
)
def test_a_malformed_jaas_line_is_refused_with_kafkas_reason(line: str, reason: str) -> None:
    with pytest.raises(SecurityConfigError) as failure:
        parse_jaas_config(line)
    assert failure.value.key == "sasl.jaas.config"
    assert reason in str(failure.value)


def test_a_login_module_without_a_password_is_refused() -> None:
    with pytest.raises(SecurityConfigError, match="Krb5LoginModule is not supported by kconnect"):
        sasl_credentials(
            'com.sun.security.auth.module.Krb5LoginModule required useKeyTab=true principal="x";'
        )
    with pytest.raises(SecurityConfigError, match="the 'password' option is missing"):
        sasl_credentials(f'{SCRAM} required username="u";')


def test_sasl_settings_become_aiokafkas_arguments() -> None:
    props = {
        "security.protocol": "sasl_plaintext",
        "sasl.mechanism": "SCRAM-SHA-256",
        "sasl.jaas.config": f'{SCRAM} required username="u" password="p";',
    }
    assert security_kwargs(props) == {
        "security_protocol": "SASL_PLAINTEXT",
        "sasl_mechanism": "SCRAM-SHA-256",
        "sasl_plain_username": "u",
        "sasl_plain_password": "p",
    }
    assert security_kwargs({}) == {}, "PLAINTEXT is aiokafka's default"


@pytest.mark.parametrize(
    ("props", "key", "reason"),
    [
        (
            {"security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "PLAIN"},
            "sasl.jaas.config",
            "is required",
        ),
        (
            {
                "security.protocol": "SASL_SSL",
                "sasl.jaas.config": f'{PLAIN} required username="u" password="p";',
            },
            "sasl.mechanism",
            "GSSAPI (Kafka's default) is not supported",
        ),
        (
            {"security.protocol": "SSL", "ssl.keystore.location": "/ks.jks"},
            "ssl.keystore.type",
            "PEM stores only",
        ),
        (
            {"security.protocol": "SSL", "ssl.truststore.type": "PEM", "ssl.truststore.password": "x"},
            "ssl.truststore.password",
            "SSL trust store password cannot be specified for PEM format.",
        ),
        (
            {"security.protocol": "SSL", "ssl.keystore.type": "PEM", "ssl.keystore.certificate.chain": "x"},
            "ssl.keystore.key",
            "SSL certificate chain is specified, but private key is not specified",
        ),
        (
            {
                "security.protocol": "SSL",
                "ssl.truststore.type": "PEM",
                "ssl.truststore.location": "/ca.pem",
                "ssl.truststore.certificates": "x",
            },
            "ssl.truststore.location",
            "Both SSL trust store location and separate trust certificates are specified.",
        ),
        (
            {"security.protocol": "SSL", "ssl.enabled.protocols": "TLSv1.1"},
            "ssl.enabled.protocols",
            "TLSv1.1",
        ),
        (
            {"security.protocol": "SSL", "ssl.endpoint.identification.algorithm": "ldap"},
            "ssl.endpoint.identification.algorithm",
            "Invalid value ldap",
        ),
    ],
)
def test_invalid_security_settings_are_named(props: dict[str, str], key: str, reason: str) -> None:
    problems = security_problems(props)
    assert key in problems
    assert reason in problems[key]


def test_one_line_pem_gets_its_line_breaks_back() -> None:
    """A properties file's continuation lines join a PEM value without separators; Kafka reads it."""
    text = "-----BEGIN CERTIFICATE-----\nQUJD\nREVG\n-----END CERTIFICATE-----\n"
    assert (
        normalize_pem(text.replace("\n", ""))
        == "-----BEGIN CERTIFICATE-----\nQUJDREVG\n-----END CERTIFICATE-----\n"
    )


def test_pem_stores_make_an_ssl_context(ca: CertificateAuthority, client_cert: Certificate) -> None:
    from_files = ssl_context(
        {
            "ssl.truststore.type": "PEM",
            "ssl.truststore.location": str(ca.certificate),
            "ssl.keystore.type": "PEM",
            "ssl.keystore.location": str(client_cert.keystore),
            "ssl.key.password": KEY_PASSWORD,
        }
    )
    assert from_files.verify_mode is ssl.CERT_REQUIRED and from_files.check_hostname
    assert [c["subject"] for c in from_files.get_ca_certs()] == [
        ((("commonName", "kconnect throwaway test CA"),),)
    ]
    inline = ssl_context(
        {
            "ssl.truststore.type": "PEM",
            "ssl.truststore.certificates": ca.certificate_text.replace("\n", ""),
            "ssl.keystore.type": "PEM",
            "ssl.keystore.certificate.chain": client_cert.chain_text,
            "ssl.keystore.key": client_cert.key_text,
            "ssl.key.password": KEY_PASSWORD,
            "ssl.endpoint.identification.algorithm": "",
            "ssl.enabled.protocols": "TLSv1.3",
        }
    )
    assert not inline.check_hostname, "an empty algorithm turns the host name check off, as in Kafka"
    assert inline.minimum_version is ssl.TLSVersion.TLSv1_3
    with pytest.raises(SecurityConfigError) as wrong:
        ssl_context(
            {
                "ssl.keystore.type": "PEM",
                "ssl.keystore.location": str(client_cert.keystore),
                "ssl.key.password": "no",
            }
        )
    assert wrong.value.key == "ssl.keystore.location"
    with pytest.raises(SecurityConfigError, match=r"cannot read /missing\.pem"):
        ssl_context({"ssl.truststore.type": "PEM", "ssl.truststore.location": "/missing.pem"})
