"""Internal request signing (KIP-507): HMACs with Java's names, the inter.worker.* keys, session keys."""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Callable
from typing import Any

import pytest
from kconnect.distributed.request_signing import (
    InterWorkerKeyConfig,
    UnsupportedAlgorithmError,
    generate_session_key,
    needs_rotation,
    sign,
    signature_matches,
    supported_algorithms,
)
from kconnect.model import SessionKey
from kconnect.worker_config import ConfigFileError

BODY = b'[{"task.class":"T","topic":"t"}]'
KEY = bytes(range(32))
SUPPORTED = (
    "[HmacMD5, HmacSHA1, HmacSHA224, HmacSHA256, HmacSHA384, HmacSHA512, HmacSHA512/224, "
    "HmacSHA512/256, HmacSHA3-224, HmacSHA3-256, HmacSHA3-384, HmacSHA3-512]"
)
SOURCE = "worker.properties"
HOUR_MS = 3_600_000


# --- sign / signature_matches --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("algorithm", "digest"),
    [
        ("HmacSHA256", hashlib.sha256),
        ("hmacsha256", hashlib.sha256),  # Java looks names up case-insensitively
        ("HmacSHA1", hashlib.sha1),
        ("HmacMD5", hashlib.md5),
        ("HmacSHA224", hashlib.sha224),
        ("HmacSHA384", hashlib.sha384),
        ("HmacSHA512", hashlib.sha512),
        ("HmacSHA3-256", hashlib.sha3_256),
        ("HmacSHA3-512", hashlib.sha3_512),
    ],
)
def test_sign_is_the_hmac_of_the_body(algorithm: str, digest: Callable[..., Any]) -> None:
    assert sign(KEY, BODY, algorithm) == hmac.new(KEY, BODY, digest).digest()


@pytest.mark.parametrize(
    ("algorithm", "expected_hex"),
    [  # RFC 4231 / RFC 2202 test case 2: key "Jefe"
        ("HmacSHA256", "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"),
        ("HmacSHA1", "effcdf6ae5eb2fa2d27416d5f184df9c259a7c79"),
        ("HmacMD5", "750c783e6ab0b503eaa86e310a5db738"),
    ],
)
def test_sign_known_answers(algorithm: str, expected_hex: str) -> None:
    assert sign(b"Jefe", b"what do ya want for nothing?", algorithm).hex() == expected_hex


def test_every_algorithm_the_message_names_can_sign() -> None:
    names = supported_algorithms().strip("[]").split(", ")
    assert supported_algorithms() == SUPPORTED
    assert {len(sign(KEY, BODY, name)) for name in names} == {16, 20, 28, 32, 48, 64}


def test_signature_matches_only_with_the_same_key_body_and_algorithm() -> None:
    good = hmac.new(KEY, BODY, hashlib.sha256).digest()
    assert signature_matches(KEY, BODY, "HmacSHA256", good)
    assert not signature_matches(bytes(32), BODY, "HmacSHA256", good)
    assert not signature_matches(KEY, BODY + b" ", "HmacSHA256", good)
    assert not signature_matches(KEY, BODY, "HmacSHA512", good)
    assert not signature_matches(KEY, BODY, "HmacSHA256", good[:-1])


def test_an_unknown_algorithm_cannot_sign() -> None:
    with pytest.raises(UnsupportedAlgorithmError) as info:
        sign(KEY, BODY, "HmacWhirlpool")
    assert str(info.value) == (
        f"the algorithm is not supported by this worker; the supported algorithms are: {SUPPORTED}"
    )


# --- InterWorkerKeyConfig.from_props -----------------------------------------------------------------------


def test_defaults_are_kafkas() -> None:
    config = InterWorkerKeyConfig.from_props({})
    assert config == InterWorkerKeyConfig("HmacSHA256", None, HOUR_MS, "HmacSHA256", ("HmacSHA256",))
    assert config.key_bytes() == 32


def test_every_key_is_read() -> None:
    config = InterWorkerKeyConfig.from_props(
        {
            "inter.worker.key.generation.algorithm": " HmacSHA512 ",
            "inter.worker.key.size": "512",
            "inter.worker.key.ttl.ms": "60000",
            "inter.worker.signature.algorithm": "HmacSHA384",
            "inter.worker.verification.algorithms": "HmacSHA256, HmacSHA384 ,",
        }
    )
    assert config == InterWorkerKeyConfig(
        "HmacSHA512", 512, 60000, "HmacSHA384", ("HmacSHA256", "HmacSHA384")
    )


def invalid(key: str, value: str, reason: str) -> str:
    return f"{SOURCE}: {key}: Invalid value {value} for configuration {key}: {reason}"


UNSUPPORTED = f"the algorithm is not supported by this worker; the supported algorithms are: {SUPPORTED}"
REFUSALS = [
    ({"inter.worker.key.generation.algorithm": "HmacFoo"},
     invalid("inter.worker.key.generation.algorithm", "HmacFoo", UNSUPPORTED)),
    ({"inter.worker.signature.algorithm": "HmacFoo"},
     invalid("inter.worker.signature.algorithm", "HmacFoo", UNSUPPORTED)),
    ({"inter.worker.verification.algorithms": "HmacSHA256,HmacFoo"},
     invalid("inter.worker.verification.algorithms", "HmacFoo", UNSUPPORTED)),
    ({"inter.worker.verification.algorithms": ""},
     invalid("inter.worker.verification.algorithms", "",
             "At least one signature verification algorithm must be provided")),
    ({"inter.worker.verification.algorithms": "HmacSHA512"},
     invalid("inter.worker.signature.algorithm", "HmacSHA256",
             "Signature algorithm must be present in inter.worker.verification.algorithms list")),
    ({"inter.worker.signature.algorithm": "hmacsha256"},  # Java's List.contains is case-sensitive
     invalid("inter.worker.signature.algorithm", "hmacsha256",
             "Signature algorithm must be present in inter.worker.verification.algorithms list")),
    ({"inter.worker.key.size": "39"},  # Kafka's ConfigException(message) around the JDK's text
     f"{SOURCE}: inter.worker.key.size: Unable to create key generator with algorithm HmacSHA256 and key "
     "size 39: Key length must be at least 40 bits"),
    ({"inter.worker.key.size": "big"}, invalid("inter.worker.key.size", "big", "Not a number of type INT")),
    ({"inter.worker.key.ttl.ms": "-1"},
     invalid("inter.worker.key.ttl.ms", "-1", "Value must be at least 0")),
    ({"inter.worker.key.ttl.ms": "2147483648"},  # not a Java int: it does not parse
     invalid("inter.worker.key.ttl.ms", "2147483648", "Not a number of type INT")),
    ({"inter.worker.key.ttl.ms": "soon"},
     invalid("inter.worker.key.ttl.ms", "soon", "Not a number of type INT")),
]  # fmt: skip


@pytest.mark.parametrize(("props", "message"), REFUSALS)
def test_refusals_name_the_file_key_value_and_reason(props: dict[str, str], message: str) -> None:
    with pytest.raises(ConfigFileError) as info:
        InterWorkerKeyConfig.from_props(props, SOURCE)
    assert str(info.value) == message


@pytest.mark.parametrize(
    ("key", "value", "field", "expected"),
    [
        ("inter.worker.key.size", "40", "key_size_bits", 40),
        ("inter.worker.key.size", "", "key_size_bits", None),
        ("inter.worker.key.ttl.ms", "0", "key_ttl_ms", 0),
        ("inter.worker.key.ttl.ms", "2147483647", "key_ttl_ms", 2147483647),
        ("inter.worker.key.ttl.ms", " ", "key_ttl_ms", HOUR_MS),
    ],
)
def test_bounds_and_blanks_are_accepted(key: str, value: str, field: str, expected: int | None) -> None:
    assert getattr(InterWorkerKeyConfig.from_props({key: value}), field) == expected


# --- key_bytes, generate_session_key, needs_rotation -------------------------------------------------------


@pytest.mark.parametrize(
    ("algorithm", "bits", "expected"),
    [
        ("HmacSHA256", None, 32),
        ("HmacSHA1", None, 64),
        ("HmacMD5", None, 64),
        ("HmacSHA384", None, 48),
        ("HmacSHA512", None, 64),
        ("HmacSHA3-224", None, 28),
        ("hmacsha224", None, 28),
        ("HmacSHA256", 40, 5),
        ("HmacSHA256", 41, 6),  # rounded up, as SunJCE's key generators
        ("HmacSHA256", 1024, 128),
    ],
)
def test_key_bytes(algorithm: str, bits: int | None, expected: int) -> None:
    assert (
        InterWorkerKeyConfig(key_generation_algorithm=algorithm, key_size_bits=bits).key_bytes() == expected
    )


def test_generated_session_keys_are_fresh_random_keys_of_the_configured_size() -> None:
    config = InterWorkerKeyConfig.from_props(
        {"inter.worker.key.generation.algorithm": "HmacSHA512", "inter.worker.key.size": "256"}
    )
    first, second = generate_session_key(config, 1_000), generate_session_key(config, 2_000)
    assert (len(first.key), first.algorithm, first.creation_timestamp_ms) == (32, "HmacSHA512", 1_000)
    assert second.creation_timestamp_ms == 2_000
    assert first.key != second.key


@pytest.mark.parametrize(
    ("created_ms", "now_ms", "expected"),
    [
        (None, 0, True),
        (1_000, 1_000, False),
        (1_000, 1_000 + HOUR_MS - 1, False),
        (1_000, 1_000 + HOUR_MS, True),
        (1_000, 1_000 + 2 * HOUR_MS, True),
    ],
)
def test_needs_rotation_when_none_or_expired(created_ms: int | None, now_ms: int, expected: bool) -> None:
    key = None if created_ms is None else SessionKey(KEY, "HmacSHA256", created_ms)
    assert needs_rotation(key, InterWorkerKeyConfig(), now_ms) is expected


def test_needs_rotation_follows_the_configured_ttl() -> None:
    config = InterWorkerKeyConfig.from_props({"inter.worker.key.ttl.ms": "60000"})
    key = SessionKey(KEY, "HmacSHA256", 0)
    assert (needs_rotation(key, config, 59_999), needs_rotation(key, config, 60_000)) == (False, True)
