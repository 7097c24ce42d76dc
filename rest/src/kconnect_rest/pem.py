"""PEM text for the REST listeners' TLS (`kconnect_rest.tls`): blocks found as Kafka finds them,
and key material loaded into an SSL context.

Kafka's PEM parser accepts a block written on one line, which is what a ``.properties`` value
continued with ``\\`` becomes; OpenSSL wants the header, the body and the footer on lines of their
own, so every block is rewritten in OpenSSL's layout before OpenSSL sees it.
"""

from __future__ import annotations

import base64
import binascii
import os
import re
import ssl
import tempfile
import textwrap
from dataclasses import dataclass

_PEM_BLOCK = re.compile(
    r"-+BEGIN\s+(?P<label>[A-Z0-9 ]+?)\s*-+"
    r"(?P<headers>(?:\s*[^\s:-][^\r\n:]*:[^\r\n]*)*)"
    r"(?P<body>[A-Za-z0-9+/=\s]*)"
    r"-+END\s+(?P=label)\s*-+"
)


@dataclass(frozen=True)
class PemBlock:
    """One PEM block: its label (``CERTIFICATE``, ``PRIVATE KEY``...) and its text in OpenSSL's layout."""

    label: str
    text: str

    @property
    def is_private_key(self) -> bool:
        """A private key block (PKCS#8, encrypted PKCS#8, or OpenSSL's RSA / EC forms)."""
        return self.label.endswith("PRIVATE KEY")

    @property
    def is_certificate(self) -> bool:
        """A certificate block."""
        return self.label == "CERTIFICATE"

    @property
    def is_encrypted(self) -> bool:
        """A key that needs a password (PKCS#8 ``ENCRYPTED PRIVATE KEY``, or OpenSSL's ``Proc-Type``)."""
        return self.label.startswith("ENCRYPTED") or "Proc-Type: 4,ENCRYPTED" in self.text


def pem_blocks(text: str) -> list[PemBlock]:
    """The PEM blocks of `text`, in order; text around and between them is skipped, as Kafka does."""
    blocks = []
    for match in _PEM_BLOCK.finditer(text):
        label = match["label"]
        body = re.sub(r"\s+", "", match["body"])
        try:
            base64.b64decode(body, validate=True)
        except binascii.Error:
            continue
        headers = [line.strip() for line in match["headers"].strip().splitlines() if line.strip()]
        lines = [f"-----BEGIN {label}-----", *headers, *([""] if headers else [])]
        lines += [*textwrap.wrap(body, 64), f"-----END {label}-----", ""]
        blocks.append(PemBlock(label, "\n".join(lines)))
    return blocks


def load_cert_chain(context: ssl.SSLContext, key: PemBlock, chain: list[PemBlock], password: str) -> None:
    """Load a private key and its certificate chain (the key's certificate first) into `context`.

    OpenSSL reads key material from a file only, so it goes through a file in a private temporary
    directory, removed at once. Raises ssl.SSLError when the password is wrong or the key is not
    the first certificate's.
    """
    with tempfile.TemporaryDirectory(prefix="kconnect-tls-") as directory:
        path = os.path.join(directory, "keystore.pem")
        with os.fdopen(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "w") as file:
            file.write(key.text + "".join(block.text for block in chain))
        # A callable password: an encrypted key never makes OpenSSL prompt on the terminal.
        context.load_cert_chain(path, password=lambda: password.encode())
