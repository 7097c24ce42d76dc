"""The credentials file: one ``user:scrypt$n$r$p$salt$hash`` line per user, salted scrypt hashes.

Lines starting with ``#`` and blank lines are ignored. Passwords are compared in constant time, and
an unknown user costs as much as a known one.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import secrets
from dataclasses import dataclass
from pathlib import Path

from kconnect.errors import ConnectError

SCHEME = "scrypt"
N, R, P = 2**14, 8, 1
SALT_BYTES = 16
HASH_BYTES = 32


class CredentialsFileError(ConnectError):
    """The credentials file cannot be read or has a malformed line; the message names file and line."""


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _scrypt(password: str, salt: bytes, n: int, r: int, p: int, length: int) -> bytes:
    return hashlib.scrypt(
        password.encode("utf-8"), salt=salt, n=n, r=r, p=p, maxmem=128 * r * n * 2, dklen=length
    )


def hash_password(password: str, *, salt: bytes | None = None) -> str:
    """The stored form of `password`: ``scrypt$n$r$p$salt$hash`` with a fresh random salt."""
    salt = salt if salt is not None else secrets.token_bytes(SALT_BYTES)
    digest = _scrypt(password, salt, N, R, P, HASH_BYTES)
    return f"{SCHEME}${N}${R}${P}${_b64(salt)}${_b64(digest)}"


def verify_password(stored: str, password: str) -> bool:
    """Whether `password` matches the stored hash (constant-time comparison)."""
    try:
        scheme, n, r, p, salt, digest = stored.split("$")
        expected = base64.b64decode(digest, validate=True)
        if scheme != SCHEME:
            return False
        actual = _scrypt(
            password, base64.b64decode(salt, validate=True), int(n), int(r), int(p), len(expected)
        )
    except (ValueError, TypeError):
        return False
    return hmac.compare_digest(actual, expected)


#: What an unknown user's password is checked against: scrypt with a real entry's parameters, so the
#: check costs as much, and a random digest no password will match. Not hashed at import: that
#: scrypt would cost every process that loads the plugin 0.1 s (and 16 MB while it runs).
_DUMMY_HASH = "$".join(
    (
        SCHEME,
        str(N),
        str(R),
        str(P),
        _b64(secrets.token_bytes(SALT_BYTES)),
        _b64(secrets.token_bytes(HASH_BYTES)),
    )
)


@dataclass(frozen=True)
class Credentials:
    """The users of one credentials file and their password hashes."""

    users: dict[str, str]

    @classmethod
    def load(cls, path: str | Path) -> Credentials:
        """Read a credentials file; CredentialsFileError names the file and the bad line."""
        file = Path(path)
        try:
            text = file.read_text(encoding="utf-8")
        except OSError as exc:
            raise CredentialsFileError(f"{file}: cannot read credentials: {exc.strerror or exc}") from exc
        users: dict[str, str] = {}
        for number, line in enumerate(text.splitlines(), start=1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            user, sep, stored = line.partition(":")
            if not sep or not user or not stored.startswith(SCHEME + "$"):
                raise CredentialsFileError(
                    f"{file}:{number}: expected user:{SCHEME}$..., got {line[:20]!r}..."
                )
            users[user] = stored
        return cls(users)

    def check(self, user: str, password: str) -> bool:
        """Whether `user` exists and `password` is theirs; as slow for unknown users as for known ones."""
        stored = self.users.get(user)
        matches = verify_password(stored if stored is not None else _DUMMY_HASH, password)
        return stored is not None and matches


def add_user(path: str | Path, user: str, password: str) -> None:
    """Add `user` to the file (replacing an existing entry), creating it with mode 0600 if needed."""
    if not user or ":" in user or any(ch.isspace() for ch in user):
        raise CredentialsFileError(f"invalid user name {user!r}: no colon or whitespace allowed")
    file = Path(path)
    lines = file.read_text(encoding="utf-8").splitlines() if file.exists() else []
    kept = [line for line in lines if line.partition(":")[0].strip() != user]
    kept.append(f"{user}:{hash_password(password)}")
    tmp = file.with_name(file.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write("\n".join(kept) + "\n")
    os.replace(tmp, file)
