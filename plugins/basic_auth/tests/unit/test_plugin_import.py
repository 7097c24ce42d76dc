"""Loading the plugin, as every worker and Spark task process does, imports no litestar and runs no scrypt."""

from __future__ import annotations

import hashlib
import subprocess
import sys
from typing import Any

import pytest
from kconnect_basic_auth.credentials import Credentials, N, P, R, hash_password


def test_the_entry_point_imports_no_litestar_and_runs_no_scrypt() -> None:
    probe = (
        "import hashlib, sys\n"
        "calls = []\n"
        "real = hashlib.scrypt\n"
        "hashlib.scrypt = lambda *a, **k: calls.append(1) or real(*a, **k)\n"
        "import kconnect_basic_auth.plugin\n"
        "print('litestar' in sys.modules, len(calls))\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["False", "0"]


def test_an_unknown_user_still_costs_the_scrypt_a_known_one_does(monkeypatch: pytest.MonkeyPatch) -> None:
    real = hashlib.scrypt
    costs: list[tuple[int, int, int]] = []

    def counted(password: bytes, **kwargs: Any) -> bytes:
        costs.append((kwargs["n"], kwargs["r"], kwargs["p"]))
        return real(password, **kwargs)

    credentials = Credentials({"alice": hash_password("secret")})
    monkeypatch.setattr(hashlib, "scrypt", counted)
    assert not credentials.check("bob", "secret")
    assert credentials.check("alice", "secret")
    assert costs == [(N, R, P), (N, R, P)]
