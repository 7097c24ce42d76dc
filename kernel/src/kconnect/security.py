"""A Kafka client's security settings, from Kafka's property names to aiokafka's arguments.

Java clients authenticate with ``security.protocol``, ``sasl.mechanism`` and a JAAS line in
``sasl.jaas.config``, and trust brokers through ``ssl.truststore.*`` / ``ssl.keystore.*`` stores.
kconnect reads the same keys (worker top-level, ``producer.*`` / ``consumer.*`` / ``admin.*``, and a
connector's ``*.override.*``):

* `parse_jaas_config`: Kafka's JAAS syntax (``<LoginModule> <flag> key="value" ...;``), one login module.
  ``PlainLoginModule`` and ``ScramLoginModule`` give aiokafka's ``sasl_plain_username`` /
  ``sasl_plain_password`` (Java's SASL clients take username and password from either module).
* `ssl_context`: an `ssl.SSLContext` from PEM stores (``ssl.truststore.type=PEM`` with a PEM file in
  ``ssl.truststore.location`` or inline ``ssl.truststore.certificates``; ``ssl.keystore.type=PEM`` with a
  PEM file in ``ssl.keystore.location`` or inline ``ssl.keystore.certificate.chain`` and
  ``ssl.keystore.key``, decrypted with ``ssl.key.password``). No truststore: the system's CAs, as Java
  falls back to the JVM's. JKS and PKCS12 stores are refused with the way to convert them.
* `security_problems`: the combined rules, as Kafka's SSL factory and SASL login check them, for
  validation; `security_kwargs`: the aiokafka arguments.

Calls read files (PEM stores) but do no network I/O.
"""

from __future__ import annotations

import os
import re
import ssl
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

PLAIN_LOGIN_MODULE = "org.apache.kafka.common.security.plain.PlainLoginModule"
SCRAM_LOGIN_MODULE = "org.apache.kafka.common.security.scram.ScramLoginModule"
_PASSWORD_MODULES = (PLAIN_LOGIN_MODULE, SCRAM_LOGIN_MODULE)
_CONTROL_FLAGS = ("required", "requisite", "sufficient", "optional")
SASL_PROTOCOLS = ("SASL_PLAINTEXT", "SASL_SSL")
SSL_PROTOCOLS = ("SSL", "SASL_SSL")
SASL_MECHANISMS = ("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512")
_TLS_VERSIONS = {"TLSv1.2": ssl.TLSVersion.TLSv1_2, "TLSv1.3": ssl.TLSVersion.TLSv1_3}
_CONVERT_HINT = (
    "kconnect reads PEM stores only: convert it (keytool -importkeystore -deststoretype PKCS12, then "
    "openssl pkcs12 -nodes) and set the type to PEM"
)


class SecurityConfigError(ValueError):
    """A security setting is invalid or unsupported; the message names the key."""

    def __init__(self, key: str, message: str) -> None:
        super().__init__(message)
        self.key = key


# --- JAAS -------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class JaasLogin:
    """One login module entry of ``sasl.jaas.config``."""

    login_module: str
    control_flag: str
    options: Mapping[str, str] = field(default_factory=dict)


_TOKEN = re.compile(
    r"""\s+|//[^\n]*|/\*.*?(?:\*/|$)|(?P<quoted>"(?:[^"\\]|\\.)*"?|'(?:[^'\\]|\\.)*'?)"""
    r"""|(?P<word>[A-Za-z0-9._$\-\u0080-\uffff]+)|(?P<char>.)""",
    re.DOTALL,
)
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f"}


def _tokens(text: str) -> list[tuple[str, str]]:
    """(kind, text) tokens as Java's StreamTokenizer gives them to Kafka's JaasConfig."""
    tokens: list[tuple[str, str]] = []
    for match in _TOKEN.finditer(text):
        if match.group("quoted") is not None:
            body = match.group("quoted")[1:]
            body = body[:-1] if body.endswith(match.group("quoted")[0]) else body
            value = re.sub(r"\\(.)", lambda m: _ESCAPES.get(m.group(1), m.group(1)), body, flags=re.DOTALL)
            tokens.append(("value", value))
        elif match.group("word") is not None:
            tokens.append(("value", match.group("word")))
        elif match.group("char") is not None:
            tokens.append(("char", match.group("char")))
    return tokens


def parse_jaas_config(text: str) -> JaasLogin:
    """The one login module of a ``sasl.jaas.config`` value (Kafka's JaasConfig syntax and rules).

    Raises SecurityConfigError (key ``sasl.jaas.config``) on a syntax error or not exactly one module.
    """

    def fail(reason: str) -> SecurityConfigError:
        return SecurityConfigError("sasl.jaas.config", f"Invalid value for sasl.jaas.config: {reason}")

    tokens = _tokens(text)
    entries: list[JaasLogin] = []
    i = 0
    while i < len(tokens):
        kind, module = tokens[i]
        if kind != "value":
            raise fail(f"expected a login module class, found '{module}'")
        if i + 1 >= len(tokens):
            raise fail("Login module control flag not specified in JAAS config")
        flag = tokens[i + 1][1]
        if tokens[i + 1][0] != "value" or flag.lower() not in _CONTROL_FLAGS:
            raise fail(f"Invalid login module control flag '{flag}' in JAAS config")
        i += 2
        options: dict[str, str] = {}
        while i < len(tokens) and tokens[i] != ("char", ";"):
            key = tokens[i][1]
            if tokens[i][0] != "value" or tokens[i + 1 : i + 2] != [("char", "=")] or i + 2 >= len(tokens):
                raise fail(f"Value not specified for key '{key}' in JAAS config")
            if tokens[i + 2][0] != "value":
                raise fail(f"Value not specified for key '{key}' in JAAS config")
            options[key] = tokens[i + 2][1]
            i += 3
        if i >= len(tokens):
            raise fail("JAAS config entry not terminated by semi-colon")
        i += 1
        entries.append(JaasLogin(module, flag.lower(), options))
    if len(entries) != 1:
        if not entries:
            raise fail("Login module not specified in JAAS config")
        raise fail(f"JAAS config property contains {len(entries)} login modules, should be 1 module")
    return entries[0]


def sasl_credentials(jaas_config: str) -> tuple[str, str]:
    """Username and password of a PlainLoginModule or ScramLoginModule line; SecurityConfigError otherwise."""
    login = parse_jaas_config(jaas_config)
    if login.login_module not in _PASSWORD_MODULES:
        raise SecurityConfigError(
            "sasl.jaas.config",
            f"Invalid value for sasl.jaas.config: login module {login.login_module} is not supported by "
            f"kconnect (use {PLAIN_LOGIN_MODULE} or {SCRAM_LOGIN_MODULE})",
        )
    for option in ("username", "password"):
        if option not in login.options:
            raise SecurityConfigError(
                "sasl.jaas.config", f"Invalid value for sasl.jaas.config: the '{option}' option is missing"
            )
    return login.options["username"], login.options["password"]


# --- SSL --------------------------------------------------------------------------------------------------

_PEM_BLOCK = re.compile(r"-----BEGIN ([A-Z0-9 ]+)-----(.*?)-----END \1-----", re.DOTALL)


def normalize_pem(text: str) -> str:
    """PEM blocks with their line breaks restored: a properties file's continuation lines or a JSON
    value may carry them on one line, which Kafka accepts and OpenSSL does not."""
    blocks = []
    for label, body in _PEM_BLOCK.findall(text):
        if "Proc-Type:" in body:  # a legacy encrypted key: its headers need their own lines, keep as is
            blocks.append(f"-----BEGIN {label}-----{body}-----END {label}-----")
            continue
        data = "".join(body.split())
        lines = [data[i : i + 64] for i in range(0, len(data), 64)]
        blocks.append("\n".join([f"-----BEGIN {label}-----", *lines, f"-----END {label}-----"]))
    return "\n".join(blocks) + "\n" if blocks else text


def _blank(props: Mapping[str, str], key: str) -> bool:
    return not (props.get(key) or "").strip()


def _store_type(props: Mapping[str, str], key: str) -> str:
    return (props.get(key) or "JKS").strip().upper()


def _ssl_checks(props: Mapping[str, str]) -> None:
    """Kafka's rules for the store keys (its DefaultSslEngineFactory's), and kconnect's PEM-only rule."""
    t_type = _store_type(props, "ssl.truststore.type")
    if not _blank(props, "ssl.truststore.certificates"):
        if t_type != "PEM":
            raise SecurityConfigError(
                "ssl.truststore.certificates",
                f"SSL trust store certs can be specified only for PEM, but trust store type is {t_type}.",
            )
        if not _blank(props, "ssl.truststore.location"):
            raise SecurityConfigError(
                "ssl.truststore.location",
                "Both SSL trust store location and separate trust certificates are specified.",
            )
    has_truststore = not _blank(props, "ssl.truststore.location") or not _blank(
        props, "ssl.truststore.certificates"
    )
    if has_truststore and t_type != "PEM":
        raise SecurityConfigError("ssl.truststore.type", f"ssl.truststore.type {t_type}: {_CONVERT_HINT}")
    if t_type == "PEM" and not _blank(props, "ssl.truststore.password"):
        raise SecurityConfigError(
            "ssl.truststore.password", "SSL trust store password cannot be specified for PEM format."
        )
    k_type = _store_type(props, "ssl.keystore.type")
    if not _blank(props, "ssl.keystore.key"):
        if k_type != "PEM":
            raise SecurityConfigError(
                "ssl.keystore.key",
                f"SSL private key can be specified only for PEM, but key store type is {k_type}.",
            )
        if _blank(props, "ssl.keystore.certificate.chain"):
            raise SecurityConfigError(
                "ssl.keystore.certificate.chain",
                "SSL private key is specified, but certificate chain is not specified.",
            )
        if not _blank(props, "ssl.keystore.location"):
            raise SecurityConfigError(
                "ssl.keystore.location",
                "Both SSL key store location and separate private key are specified.",
            )
    elif not _blank(props, "ssl.keystore.certificate.chain"):
        raise SecurityConfigError(
            "ssl.keystore.key", "SSL certificate chain is specified, but private key is not specified"
        )
    has_keystore = not _blank(props, "ssl.keystore.location") or not _blank(props, "ssl.keystore.key")
    if has_keystore and k_type != "PEM":
        raise SecurityConfigError("ssl.keystore.type", f"ssl.keystore.type {k_type}: {_CONVERT_HINT}")
    if k_type == "PEM" and not _blank(props, "ssl.keystore.password"):
        raise SecurityConfigError(
            "ssl.keystore.password",
            "SSL key store password cannot be specified with PEM format, only key password may be specified.",
        )
    algorithm = _endpoint_identification(props)
    if algorithm.lower() not in ("https", ""):
        raise SecurityConfigError(
            "ssl.endpoint.identification.algorithm",
            f"Invalid value {algorithm} for configuration ssl.endpoint.identification.algorithm: "
            "kconnect supports https (check the broker's host name) or an empty value (no check)",
        )


def _endpoint_identification(props: Mapping[str, str]) -> str:
    """``https`` (Kafka's default) or the value set; empty turns the host name check off."""
    raw = props.get("ssl.endpoint.identification.algorithm")
    return "https" if raw is None else raw.strip()


def _tls_bounds(props: Mapping[str, str]) -> tuple[ssl.TLSVersion, ssl.TLSVersion]:
    raw = props.get("ssl.enabled.protocols")
    names = [p.strip() for p in (raw if raw is not None else "TLSv1.2,TLSv1.3").split(",") if p.strip()]
    if not names:
        raise SecurityConfigError(
            "ssl.enabled.protocols", "ssl.enabled.protocols must list TLSv1.2 or TLSv1.3"
        )
    by_lower = {name.lower(): version for name, version in _TLS_VERSIONS.items()}
    versions = []
    for name in names:
        if name.lower() not in by_lower:
            raise SecurityConfigError(
                "ssl.enabled.protocols",
                f"Invalid value {name} for configuration ssl.enabled.protocols: "
                "kconnect supports TLSv1.2, TLSv1.3",
            )
        versions.append(by_lower[name.lower()])
    return min(versions), max(versions)


def ssl_context(props: Mapping[str, str]) -> ssl.SSLContext:
    """The client SSL context the ``ssl.*`` keys of `props` describe (unprefixed Kafka names).

    Reads the PEM files named; raises SecurityConfigError naming the key when a store is invalid,
    unsupported or unreadable.
    """
    _ssl_checks(props)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.minimum_version, context.maximum_version = _tls_bounds(props)
    if not _endpoint_identification(props):
        context.check_hostname = False
    context.verify_mode = ssl.CERT_REQUIRED
    location = (props.get("ssl.truststore.location") or "").strip()
    inline = props.get("ssl.truststore.certificates") or ""
    try:
        if location:
            context.load_verify_locations(cadata=normalize_pem(_read(location, "ssl.truststore.location")))
        elif inline.strip():
            context.load_verify_locations(cadata=normalize_pem(inline))
        else:
            context.load_default_certs(ssl.Purpose.SERVER_AUTH)
    except ssl.SSLError as bad:
        key = "ssl.truststore.location" if location else "ssl.truststore.certificates"
        raise SecurityConfigError(key, f"Invalid PEM truststore configs ({key}): {bad}") from bad
    _load_keystore(context, props)
    return context


def _read(path: str, key: str) -> str:
    try:
        with open(path, encoding="ascii", errors="replace") as file:
            return file.read()
    except OSError as bad:
        raise SecurityConfigError(key, f"{key}: cannot read {path}: {bad.strerror or bad}") from bad


def _load_keystore(context: ssl.SSLContext, props: Mapping[str, str]) -> None:
    location = (props.get("ssl.keystore.location") or "").strip()
    key = props.get("ssl.keystore.key") or ""
    if not location and not key.strip():
        return
    password = props.get("ssl.key.password") or None
    if location:
        pem, what = normalize_pem(_read(location, "ssl.keystore.location")), "ssl.keystore.location"
    else:
        pem = normalize_pem(key) + normalize_pem(props.get("ssl.keystore.certificate.chain") or "")
        what = "ssl.keystore.key"
    # OpenSSL loads a certificate chain from a file only: a private temporary file, removed at once.
    handle, path = tempfile.mkstemp(prefix="kconnect-keystore-", suffix=".pem")
    try:
        with os.fdopen(handle, "w", encoding="ascii") as file:
            file.write(pem)
        context.load_cert_chain(path, password=password)
    except ssl.SSLError as bad:
        raise SecurityConfigError(what, f"Invalid PEM keystore configs ({what}): {bad}") from bad
    finally:
        os.unlink(path)


# --- Both -------------------------------------------------------------------------------------------------


def security_problems(props: Mapping[str, str]) -> dict[str, str]:
    """Errors of the security keys of `props` taken together, by key, without reading any file.

    Checks, as Java's clients do only for the protocol in use: a SASL protocol has a supported
    ``sasl.mechanism`` (Kafka's default GSSAPI is not) and a ``sasl.jaas.config`` with a username and
    password; an SSL protocol's stores follow Kafka's rules and are PEM. So a Java worker file with JKS
    settings and ``security.protocol=PLAINTEXT`` still runs, as in Java.
    """
    problems: dict[str, str] = {}
    protocol = (props.get("security.protocol") or "PLAINTEXT").strip().upper()
    if protocol in SASL_PROTOCOLS:
        mechanism = (props.get("sasl.mechanism") or "").strip()
        if mechanism.upper() not in SASL_MECHANISMS:
            shown = mechanism or "GSSAPI (Kafka's default)"
            problems["sasl.mechanism"] = (
                f"sasl.mechanism {shown} is not supported by kconnect with security.protocol {protocol}: "
                f"set one of {', '.join(SASL_MECHANISMS)}"
            )
        jaas = props.get("sasl.jaas.config") or ""
        if not jaas.strip():
            problems["sasl.jaas.config"] = (
                f"sasl.jaas.config is required with security.protocol {protocol}: kconnect has no "
                "JAAS file (java.security.auth.login.config)"
            )
        elif "sasl.mechanism" not in problems:
            try:
                sasl_credentials(jaas)
            except SecurityConfigError as bad:
                problems[bad.key] = str(bad)
    if protocol in SSL_PROTOCOLS:
        try:
            _ssl_checks(props)
            _tls_bounds(props)
        except SecurityConfigError as bad:
            problems.setdefault(bad.key, str(bad))
    return problems


def security_kwargs(props: Mapping[str, str]) -> dict[str, Any]:
    """aiokafka's security arguments from the Kafka keys of `props` (one client's, unprefixed).

    ``security_protocol`` (unless PLAINTEXT, aiokafka's default) and, for SASL, ``sasl_mechanism``,
    ``sasl_plain_username`` and ``sasl_plain_password``; for SSL, ``ssl_context``. Raises
    SecurityConfigError naming the key.
    """
    problems = security_problems(props)
    if problems:
        key, message = next(iter(problems.items()))
        raise SecurityConfigError(key, message)
    protocol = (props.get("security.protocol") or "PLAINTEXT").strip().upper()
    kwargs: dict[str, Any] = {} if protocol == "PLAINTEXT" else {"security_protocol": protocol}
    if protocol in SASL_PROTOCOLS:
        kwargs["sasl_mechanism"] = (props.get("sasl.mechanism") or "").strip().upper()
        kwargs["sasl_plain_username"], kwargs["sasl_plain_password"] = sasl_credentials(
            props["sasl.jaas.config"]
        )
    if protocol in SSL_PROTOCOLS:
        kwargs["ssl_context"] = ssl_context(props)
    return kwargs
