"""Internal request signing (KIP-507): the worker keys, session keys and their HMAC, no HTTP.

Workers of a cluster sign the requests they send each other (a follower's task configs to the
leader) with a session key the leader generates and writes to the config topic
(``session-key``). The signature is the HMAC of the request body's bytes under the session key,
with Java's algorithm names (``HmacSHA256``...), so kconnect and Java workers verify each other.
The REST layer carries signatures in headers (`kconnect_rest.signing`); the leader generates and
rotates keys with `generate_session_key` and `needs_rotation`.

Worker properties (Kafka's DistributedConfig names and defaults):

``inter.worker.key.generation.algorithm`` (HmacSHA256), ``inter.worker.key.size`` (bits; unset:
the algorithm's default), ``inter.worker.key.ttl.ms`` (3600000), ``inter.worker.signature.algorithm``
(HmacSHA256), ``inter.worker.verification.algorithms`` (HmacSHA256; must include the signature
algorithm).
"""

from __future__ import annotations

import hmac
import secrets
from collections.abc import Mapping
from dataclasses import dataclass

from kconnect.errors import ConnectError
from kconnect.model import SessionKey
from kconnect.worker_config import ConfigFileError

KEY_GENERATION_ALGORITHM_CONFIG = "inter.worker.key.generation.algorithm"
KEY_SIZE_CONFIG = "inter.worker.key.size"
KEY_TTL_MS_CONFIG = "inter.worker.key.ttl.ms"
SIGNATURE_ALGORITHM_CONFIG = "inter.worker.signature.algorithm"
VERIFICATION_ALGORITHMS_CONFIG = "inter.worker.verification.algorithms"
DEFAULT_ALGORITHM = "HmacSHA256"
DEFAULT_KEY_TTL_MS = 3_600_000

MAC_ALGORITHMS: Mapping[str, tuple[str, int]] = {
    "hmacmd5": ("md5", 64),
    "hmacsha1": ("sha1", 64),
    "hmacsha224": ("sha224", 28),
    "hmacsha256": ("sha256", 32),
    "hmacsha384": ("sha384", 48),
    "hmacsha512": ("sha512", 64),
    "hmacsha512/224": ("sha512_224", 28),
    "hmacsha512/256": ("sha512_256", 32),
    "hmacsha3-224": ("sha3_224", 28),
    "hmacsha3-256": ("sha3_256", 32),
    "hmacsha3-384": ("sha3_384", 48),
    "hmacsha3-512": ("sha3_512", 64),
}
"""Java Mac/KeyGenerator name (case-insensitive, as Java's lookup) -> (hashlib name, default key bytes).

The default key sizes are the SunJCE KeyGenerators' (a key as long as the digest for SHA-2/SHA-3,
64 bytes for HmacMD5 and HmacSHA1)."""


class UnsupportedAlgorithmError(ConnectError):
    """A signature or key algorithm name kconnect does not know (the message lists the known ones)."""


def _digest(algorithm: str) -> tuple[str, int]:
    found = MAC_ALGORITHMS.get(algorithm.lower())
    if found is None:
        raise UnsupportedAlgorithmError(
            "the algorithm is not supported by this worker; "
            f"the supported algorithms are: {supported_algorithms()}"
        )
    return found


def supported_algorithms() -> str:
    """The supported Java algorithm names, for messages."""
    names = {
        "hmacmd5": "HmacMD5",
        "hmacsha1": "HmacSHA1",
        "hmacsha224": "HmacSHA224",
        "hmacsha256": "HmacSHA256",
        "hmacsha384": "HmacSHA384",
        "hmacsha512": "HmacSHA512",
        "hmacsha512/224": "HmacSHA512/224",
        "hmacsha512/256": "HmacSHA512/256",
    }
    sha3 = [f"HmacSHA3-{n}" for n in (224, 256, 384, 512)]
    return "[" + ", ".join([*names.values(), *sha3]) + "]"


def sign(key: bytes, body: bytes, algorithm: str) -> bytes:
    """The HMAC of `body` under `key` with Java's `algorithm` name; UnsupportedAlgorithmError if unknown."""
    return hmac.new(key, body, _digest(algorithm)[0]).digest()


def signature_matches(key: bytes, body: bytes, algorithm: str, signature: bytes) -> bool:
    """Whether `signature` is the HMAC of `body` under `key` (constant-time comparison)."""
    return hmac.compare_digest(sign(key, body, algorithm), signature)


@dataclass(frozen=True)
class InterWorkerKeyConfig:
    """The ``inter.worker.*`` worker properties, checked with Kafka's rules and texts."""

    key_generation_algorithm: str = DEFAULT_ALGORITHM
    key_size_bits: int | None = None
    key_ttl_ms: int = DEFAULT_KEY_TTL_MS
    signature_algorithm: str = DEFAULT_ALGORITHM
    verification_algorithms: tuple[str, ...] = (DEFAULT_ALGORITHM,)

    @classmethod
    def from_props(cls, props: Mapping[str, str], source: str = "<worker config>") -> InterWorkerKeyConfig:
        """Read the keys; ConfigFileError names `source`, the key and Kafka's reason."""

        def refuse(key: str, value: str, reason: str) -> ConfigFileError:
            return ConfigFileError(
                f"{source}: {key}: Invalid value {value} for configuration {key}: {reason}"
            )

        def algorithm(key: str, value: str) -> str:
            try:
                _digest(value)
            except UnsupportedAlgorithmError as exc:
                raise refuse(key, value, str(exc)) from None
            return value

        generation = algorithm(
            KEY_GENERATION_ALGORITHM_CONFIG,
            props.get(KEY_GENERATION_ALGORITHM_CONFIG, DEFAULT_ALGORITHM).strip(),
        )
        signature = algorithm(
            SIGNATURE_ALGORITHM_CONFIG, props.get(SIGNATURE_ALGORITHM_CONFIG, DEFAULT_ALGORITHM).strip()
        )
        raw_list = props.get(VERIFICATION_ALGORITHMS_CONFIG, DEFAULT_ALGORITHM)
        verification = tuple(a.strip() for a in raw_list.split(",") if a.strip())
        if not verification:
            raise refuse(
                VERIFICATION_ALGORITHMS_CONFIG,
                raw_list,
                "At least one signature verification algorithm must be provided",
            )
        for name in verification:
            algorithm(VERIFICATION_ALGORITHMS_CONFIG, name)
        if signature not in verification:
            raise refuse(
                SIGNATURE_ALGORITHM_CONFIG,
                signature,
                f"Signature algorithm must be present in {VERIFICATION_ALGORITHMS_CONFIG} list",
            )
        return cls(
            key_generation_algorithm=generation,
            key_size_bits=_key_size(props, generation, source),
            key_ttl_ms=_ttl(props, source),
            signature_algorithm=signature,
            verification_algorithms=verification,
        )

    def key_bytes(self) -> int:
        """How many bytes a generated key has: ``inter.worker.key.size`` / 8, or the algorithm's default."""
        if self.key_size_bits is None:
            return _digest(self.key_generation_algorithm)[1]
        return (self.key_size_bits + 7) // 8


def _key_size(props: Mapping[str, str], algorithm: str, source: str) -> int | None:
    key = KEY_SIZE_CONFIG
    raw = props.get(key, "").strip()
    if not raw:
        return None
    try:
        bits = int(raw)
    except ValueError:
        raise ConfigFileError(
            f"{source}: {key}: Invalid value {raw} for configuration {key}: Not a number of type INT"
        ) from None
    if bits < 40:  # SunJCE's HMAC key generators refuse shorter keys; Kafka passes on the JDK's text
        raise ConfigFileError(
            f"{source}: {key}: Unable to create key generator with algorithm {algorithm} and key size "
            f"{bits}: Key length must be at least 40 bits"
        )
    return bits


def _ttl(props: Mapping[str, str], source: str) -> int:
    raw = props.get(KEY_TTL_MS_CONFIG, "").strip()
    if not raw:
        return DEFAULT_KEY_TTL_MS
    key = KEY_TTL_MS_CONFIG
    try:
        ttl = int(raw)
    except ValueError:
        ttl = None
    # Kafka's ConfigDef: a value that is not a Java int does not parse, then Range.between(0, MAX)
    # (whose upper bound a parsed int cannot pass).
    if ttl is None or not -(2**31) <= ttl <= 2**31 - 1:
        reason = "Not a number of type INT"
    elif ttl < 0:
        reason = "Value must be at least 0"
    else:
        return ttl
    raise ConfigFileError(f"{source}: {key}: Invalid value {raw} for configuration {key}: {reason}")


def generate_session_key(config: InterWorkerKeyConfig, now_ms: int) -> SessionKey:
    """A fresh random session key (the leader calls this when there is none or it expired)."""
    return SessionKey(secrets.token_bytes(config.key_bytes()), config.key_generation_algorithm, now_ms)


def needs_rotation(key: SessionKey | None, config: InterWorkerKeyConfig, now_ms: int) -> bool:
    """Whether the leader must write a new key: none yet, or created at least ``key_ttl_ms`` ago."""
    return key is None or key.creation_timestamp_ms + config.key_ttl_ms <= now_ms
