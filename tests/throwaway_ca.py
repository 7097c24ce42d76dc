"""A throwaway certificate authority for TLS tests, made with the ``openssl`` command.

`make_ca` writes a CA and `CertificateAuthority.issue` signs certificates for ``127.0.0.1`` /
``localhost`` (server and client use), each also written as Kafka's PEM key store: one file with
the private key (PKCS#8) and the certificate chain. Keys are EC P-256, so making them is quick.
`pem_stores` gives the ``ssl.*`` keys that name them. Tests take the session's CA and its two
certificates from the fixtures in ``tests/harness.py`` (``ca``, ``server_cert``,
``client_cert``) and call `make_ca` only for a second CA the first does not trust.
"""

from __future__ import annotations

import shutil
import ssl
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

#: The password the session's client certificate key (the ``client_cert`` fixture) is encrypted with.
KEY_PASSWORD = "key-secret"

_LEAF_EXTENSIONS = """\
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature, keyEncipherment
extendedKeyUsage = serverAuth, clientAuth
subjectAltName = IP:127.0.0.1, DNS:localhost
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid, issuer
"""


def _openssl(*args: str) -> None:
    subprocess.run(["openssl", *args], check=True, capture_output=True, timeout=60)


@dataclass(frozen=True)
class Certificate:
    """An issued certificate: its files, and the same key and chain as text (inline PEM keys)."""

    key: Path
    """The private key, PKCS#8 PEM (encrypted with the password it was issued with, if any)."""
    certificate: Path
    """The certificate followed by the CA's (the chain)."""
    keystore: Path
    """Kafka's PEM key store file: the key, then the chain."""

    @property
    def key_text(self) -> str:
        """The private key as text (``ssl.keystore.key``)."""
        return self.key.read_text(encoding="ascii")

    @property
    def chain_text(self) -> str:
        """The certificate chain as text (``ssl.keystore.certificate.chain``)."""
        return self.certificate.read_text(encoding="ascii")


@dataclass(frozen=True)
class CertificateAuthority:
    """A CA made in `directory`: ``ca.pem`` (its certificate, the trust store) and ``ca.key``."""

    directory: Path

    @property
    def certificate(self) -> Path:
        """The CA's certificate, PEM (a PEM trust store)."""
        return self.directory / "ca.pem"

    @property
    def certificate_text(self) -> str:
        """The CA's certificate as text (``ssl.truststore.certificates``)."""
        return self.certificate.read_text(encoding="ascii")

    def issue(self, name: str, password: str | None = None) -> Certificate:
        """Sign a certificate for 127.0.0.1 and localhost; its key encrypted with `password` if given."""
        plain_key = self.directory / f"{name}.plain.key"
        csr = self.directory / f"{name}.csr"
        leaf = self.directory / f"{name}.leaf.pem"
        extensions = self.directory / f"{name}.ext"
        extensions.write_text(_LEAF_EXTENSIONS, encoding="ascii")
        _openssl("genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", str(plain_key))
        _openssl("req", "-new", "-key", str(plain_key), "-subj", f"/CN={name}", "-out", str(csr))
        _openssl(
            "x509", "-req", "-in", str(csr), "-CA", str(self.certificate),
            "-CAkey", str(self.directory / "ca.key"), "-CAcreateserial", "-days", "2",
            "-sha256", "-extfile", str(extensions), "-out", str(leaf),
        )  # fmt: skip
        key = self.directory / f"{name}.key"
        encryption = ["-v2", "aes-256-cbc", "-passout", f"pass:{password}"] if password else ["-nocrypt"]
        _openssl("pkcs8", "-topk8", "-in", str(plain_key), "-out", str(key), *encryption)
        chain = self.directory / f"{name}.chain.pem"
        chain.write_text(leaf.read_text(encoding="ascii") + self.certificate_text, encoding="ascii")
        keystore = self.directory / f"{name}.keystore.pem"
        keystore.write_text(key.read_text(encoding="ascii") + chain.read_text(encoding="ascii"), "ascii")
        return Certificate(key=key, certificate=chain, keystore=keystore)

    def client_context(
        self, client: Certificate | None = None, password: str | None = None
    ) -> ssl.SSLContext:
        """A client's SSL context trusting this CA, presenting `client` when given."""
        context = ssl.create_default_context(cafile=str(self.certificate))
        if client is not None:
            context.load_cert_chain(str(client.certificate), str(client.key), password=password)
        return context


def make_ca(directory: Path) -> CertificateAuthority:
    """Make a CA in `directory` (created if missing); skips the test when ``openssl`` is not installed."""
    if shutil.which("openssl") is None:
        pytest.skip("the openssl command is not installed")
    directory.mkdir(parents=True, exist_ok=True)
    _openssl(
        "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
        "-keyout", str(directory / "ca.key"), "-out", str(directory / "ca.pem"), "-days", "2",
        "-subj", "/CN=kconnect throwaway test CA",
        "-addext", "basicConstraints=critical,CA:TRUE",
        "-addext", "keyUsage=critical,keyCertSign,cRLSign",
    )  # fmt: skip
    return CertificateAuthority(directory)


def pem_stores(
    keystore: Certificate | None = None, truststore: CertificateAuthority | None = None, prefix: str = ""
) -> dict[str, str]:
    """Kafka's ``ssl.*`` keys for PEM store files, each under `prefix` (e.g. ``listeners.https.``):
    `keystore`'s key and chain as the key store, `truststore`'s certificate as the trust store."""
    keys: dict[str, str] = {}
    if keystore is not None:
        keys |= {"ssl.keystore.type": "PEM", "ssl.keystore.location": str(keystore.keystore)}
    if truststore is not None:
        keys |= {"ssl.truststore.type": "PEM", "ssl.truststore.location": str(truststore.certificate)}
    return {prefix + key: value for key, value in keys.items()}
