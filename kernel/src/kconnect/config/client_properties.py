"""Every Java Kafka client property, and what kconnect's aiokafka clients make of it.

Kafka Connect hands its clients the worker's ``producer.*`` / ``consumer.*`` / ``admin.*`` keys, the
worker's top-level client keys (internal topics, group membership), and a connector's
``producer.override.*`` / ``consumer.override.*`` / ``admin.override.*`` keys. kconnect's clients are
aiokafka's, so each property of Kafka's ``ProducerConfig``, ``ConsumerConfig`` and ``AdminClientConfig``
(Kafka 4.3, with ``CommonClientConfigs``, ``SaslConfigs`` and ``SslConfigs``) is one of:

* `Support.MAPPED`: it becomes an aiokafka argument (`ClientProperty.argument`; ``security`` marks the
  keys `kconnect.security` turns into an SSL context or SASL credentials);
* `Support.NO_OP`: accepted and without effect, for the reason in `ClientProperty.note` (Java-only tuning
  such as ``buffer.memory`` that Java worker files carry); `ClientProperty.only` limits the values
  accepted where another value would change behaviour;
* `Support.UNSUPPORTED`: refused unless left empty (Java classes, transactions, Java keystores...).

A key that is not a Kafka client property at all is refused too. `client_problems` gives the errors of
a set of properties; the worker checks its own at start-up, the herder a connector's overrides at
validation, and `kconnect.kafka.clients` turns checked properties into aiokafka arguments.
The table's types, importances and defaults are Kafka's (they show in the validate endpoint's answer);
the notes are kconnect's.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum

from kconnect.security import security_problems

from .configdef import NO_DEFAULT, ConfigDef, ConfigException, Importance, parse_type
from .values import ConfigType
from .worker_settings import BOOTSTRAP_SERVERS_CONFIG, worker_text

BOOLEAN, CLASS, DOUBLE, INT, LIST, LONG, PASSWORD, SHORT, STRING = (
    ConfigType.BOOLEAN,
    ConfigType.CLASS,
    ConfigType.DOUBLE,
    ConfigType.INT,
    ConfigType.LIST,
    ConfigType.LONG,
    ConfigType.PASSWORD,
    ConfigType.SHORT,
    ConfigType.STRING,
)
HIGH, MEDIUM, LOW = Importance.HIGH, Importance.MEDIUM, Importance.LOW
REQUIRED = NO_DEFAULT


class ClientKind(str, Enum):
    """The three Kafka clients; the value is the worker's prefix without its dot."""

    PRODUCER = "producer"
    CONSUMER = "consumer"
    ADMIN = "admin"

    @property
    def override_prefix(self) -> str:
        """The connector's prefix for this client (``producer.override.``...)."""
        return f"{self.value}.override."


class Support(str, Enum):
    """What kconnect does with a Java client property."""

    MAPPED = "mapped"
    NO_OP = "no-op"
    UNSUPPORTED = "unsupported"


MAPPED, NO_OP, UNSUPPORTED = Support.MAPPED, Support.NO_OP, Support.UNSUPPORTED

_KINDS = {"p": ClientKind.PRODUCER, "c": ClientKind.CONSUMER, "a": ClientKind.ADMIN}

#: `ClientProperty.argument` of the keys that `kconnect.security` reads together.
SECURITY = "security"


@dataclass(frozen=True)
class KeySpec:
    """A property's type, importance and default in one client's ConfigDef (Kafka's values)."""

    type: ConfigType
    importance: Importance
    default: object
    """The default as Kafka renders it, None for Kafka's null, or `REQUIRED`."""


@dataclass(frozen=True)
class ClientProperty:
    """One Java client property: where Kafka defines it and what kconnect does with it."""

    name: str
    spec: KeySpec
    kinds: frozenset[ClientKind]
    support: Support
    argument: str | None
    """The aiokafka argument (MAPPED), ``security`` (`kconnect.security`), or a note in parentheses for
    keys the task loops read themselves (``delivery.timeout.ms``)."""
    note: str
    only: tuple[str, ...] = ()
    """If not empty: the only values accepted (case-insensitive; each item of a list)."""
    per_client: Mapping[ClientKind, KeySpec] = field(default_factory=dict)

    def spec_for(self, kind: ClientKind) -> KeySpec:
        """The type, importance and default in `kind`'s ConfigDef."""
        return self.per_client.get(kind, self.spec)

    def problem(self, kind: ClientKind, value: str) -> str | None:
        """Why kconnect refuses `value` for this key, or None when it is accepted."""
        spec = self.spec_for(kind)
        if self.support is UNSUPPORTED:
            return None if not value.strip() else f"{self.name} is not supported by kconnect: {self.note}"
        try:
            parsed = parse_type(self.name, value, spec.type)
        except ConfigException as bad:
            return bad.message
        if self.only:
            items = [str(i) for i in parsed] if isinstance(parsed, list) else [value.strip()]
            allowed = {v.lower() for v in self.only}
            for item in items:
                if item.lower() not in allowed:
                    return (
                        f"Invalid value {item} for configuration {self.name}: kconnect supports "
                        f"{', '.join(self.only)}" + (f" ({self.note})" if self.note else "")
                    )
        return None


def _p(
    name: str,
    type: ConfigType,
    importance: Importance,
    default: object,
    kinds: str,
    support: Support,
    argument: str | None,
    note: str,
    only: tuple[str, ...] = (),
    per_client: Mapping[str, tuple[ConfigType, Importance, object]] | None = None,
) -> ClientProperty:
    return ClientProperty(
        name=name,
        spec=KeySpec(type, importance, default),
        kinds=frozenset(_KINDS[k] for k in kinds),
        support=support,
        argument=argument,
        note=note,
        only=only,
        per_client={_KINDS[k]: KeySpec(*spec) for k, spec in (per_client or {}).items()},
    )


# Kafka 4.3's client properties, by name. Columns: name, type, importance, default, clients
# (p producer, c consumer, a admin), support, aiokafka argument, note, [accepted values], [per-client spec].
# fmt: off
_TABLE = (
    _p("acks", STRING, LOW, "all", "p", MAPPED, "acks", "'all' and '-1' are aiokafka's 'all'"),
    _p("allow.auto.create.topics", BOOLEAN, MEDIUM, "true", "c", NO_OP, None,
       "only true: aiokafka's metadata requests always let the broker create a topic (if its "
       "auto.create.topics.enable allows)",
       only=("true",)),
    _p("auto.commit.interval.ms", INT, LOW, "5000", "c", NO_OP, None,
       "Connect commits sink offsets itself (offset.flush.interval.ms)"),
    _p("auto.offset.reset", STRING, MEDIUM, "latest", "c", MAPPED, "auto_offset_reset",
       "earliest, latest or none; Kafka 4's by_duration: is refused", only=("earliest", "latest", "none")),
    _p("batch.size", INT, MEDIUM, "16384", "p", MAPPED, "max_batch_size", ""),
    _p("bootstrap.controllers", LIST, HIGH, "", "a", UNSUPPORTED, None,
       "aiokafka's admin client talks to brokers only"),
    _p("bootstrap.servers", LIST, HIGH, REQUIRED, "pca", MAPPED, "bootstrap_servers",
       "", per_client={"a": (LIST, HIGH, "")}),
    _p("buffer.memory", LONG, HIGH, "33554432", "p", NO_OP, None,
       "aiokafka has no bound on the memory of unsent batches; the source loop bounds what it hands over"),
    _p("check.crcs", BOOLEAN, LOW, "true", "c", MAPPED, "check_crcs", ""),
    _p("client.dns.lookup", STRING, MEDIUM, "use_all_dns_ips", "pca", NO_OP, None,
       "aiokafka resolves each broker's name itself and tries its addresses"),
    _p("client.id", STRING, MEDIUM, "", "pca", MAPPED, "client_id", "", per_client={"c": (STRING, LOW, "")}),
    _p("client.rack", STRING, LOW, "", "c", MAPPED, "client_rack", ""),
    _p("compression.gzip.level", INT, MEDIUM, "-1", "p", NO_OP, None,
       "aiokafka compresses at its codec's default level"),
    _p("compression.lz4.level", INT, MEDIUM, "9", "p", NO_OP, None,
       "aiokafka compresses at its codec's default level"),
    _p("compression.type", STRING, HIGH, "none", "p", MAPPED, "compression_type",
       "snappy, lz4 and zstd need their Python codec", only=("none", "gzip", "snappy", "lz4", "zstd")),
    _p("compression.zstd.level", INT, MEDIUM, "3", "p", NO_OP, None,
       "aiokafka compresses at its codec's default level"),
    _p("config.providers", LIST, LOW, "", "pca", UNSUPPORTED, None,
       "config providers are resolved by the worker, not by a client"),
    _p("connections.max.idle.ms", LONG, MEDIUM, "540000", "pca", MAPPED, "connections_max_idle_ms",
       "", per_client={"a": (LONG, MEDIUM, "300000")}),
    _p("default.api.timeout.ms", INT, MEDIUM, "60000", "ca", NO_OP, None,
       "aiokafka's calls are bounded by request.timeout.ms"),
    _p("delivery.timeout.ms", INT, MEDIUM, "120000", "p", MAPPED, "(batch time-to-live)",
       "how long a source record's batch is retried (DeliveryPolicy)"),
    _p("enable.auto.commit", BOOLEAN, MEDIUM, "true", "c", NO_OP, None,
       "Connect commits sink offsets itself; auto commit is always off"),
    _p("enable.idempotence", BOOLEAN, LOW, "true", "p", MAPPED, "enable_idempotence", ""),
    _p("enable.metrics.push", BOOLEAN, LOW, "true", "pca", NO_OP, None,
       "aiokafka does not push client metrics to the broker (KIP-714)",
       per_client={"a": (BOOLEAN, LOW, "false")}),
    _p("exclude.internal.topics", BOOLEAN, MEDIUM, "true", "c", MAPPED, "exclude_internal_topics", ""),
    _p("fetch.max.bytes", INT, MEDIUM, "52428800", "c", MAPPED, "fetch_max_bytes", ""),
    _p("fetch.max.wait.ms", INT, LOW, "500", "c", MAPPED, "fetch_max_wait_ms", ""),
    _p("fetch.min.bytes", INT, HIGH, "1", "c", MAPPED, "fetch_min_bytes", ""),
    _p("group.id", STRING, HIGH, None, "c", MAPPED, "group_id",
       "Connect's default is connect-<connector name>"),
    _p("group.instance.id", STRING, MEDIUM, None, "c", MAPPED, "group_instance_id", ""),
    _p("group.protocol", STRING, HIGH, "classic", "c", NO_OP, None,
       "aiokafka speaks the classic group protocol only", only=("classic",)),
    _p("group.remote.assignor", STRING, MEDIUM, None, "c", NO_OP, None,
       "used by the consumer group protocol only, which aiokafka lacks"),
    _p("heartbeat.interval.ms", INT, HIGH, "3000", "c", MAPPED, "heartbeat_interval_ms", ""),
    _p("interceptor.classes", LIST, LOW, "", "pc", UNSUPPORTED, None,
       "Java interceptor classes cannot run in Python"),
    _p("internal.throw.on.fetch.stable.offset.unsupported", BOOLEAN, LOW, "false", "c", NO_OP, None,
       "internal Java client switch"),
    _p("isolation.level", STRING, MEDIUM, "read_uncommitted", "c", MAPPED, "isolation_level",
       "", only=("read_uncommitted", "read_committed")),
    _p("key.deserializer", CLASS, HIGH, REQUIRED, "c", NO_OP, None,
       "Connect always reads bytes and converts them with its converters"),
    _p("key.serializer", CLASS, HIGH, REQUIRED, "p", NO_OP, None,
       "Connect always writes the converters' bytes"),
    _p("linger.ms", LONG, MEDIUM, "5", "p", MAPPED, "linger_ms", ""),
    _p("max.block.ms", LONG, MEDIUM, "60000", "p", MAPPED, "(metadata wait)",
       "how long a source record waits for its topic's metadata (DeliveryPolicy)"),
    _p("max.in.flight.requests.per.connection", INT, LOW, "5", "p", NO_OP, None,
       "checked (at least 1); aiokafka keeps one batch per partition in flight, as Connect's setting of 1"),
    _p("max.partition.fetch.bytes", INT, HIGH, "1048576", "c", MAPPED, "max_partition_fetch_bytes", ""),
    _p("max.poll.interval.ms", INT, MEDIUM, "300000", "c", MAPPED, "max_poll_interval_ms", ""),
    _p("max.poll.records", INT, MEDIUM, "500", "c", MAPPED, "max_poll_records", ""),
    _p("max.request.size", INT, MEDIUM, "1048576", "p", MAPPED, "max_request_size", ""),
    _p("metadata.max.age.ms", LONG, LOW, "300000", "pca", MAPPED, "metadata_max_age_ms", ""),
    _p("metadata.max.idle.ms", LONG, LOW, "300000", "p", NO_OP, None,
       "aiokafka keeps metadata of every topic it has used"),
    _p("metadata.recovery.rebootstrap.trigger.ms", LONG, LOW, "300000", "pca", NO_OP, None,
       "aiokafka goes back to bootstrap.servers on its own when no known broker answers"),
    _p("metadata.recovery.strategy", STRING, LOW, "rebootstrap", "pca", NO_OP, None,
       "aiokafka goes back to bootstrap.servers on its own when no known broker answers"),
    _p("metric.reporters", LIST, LOW, "org.apache.kafka.common.metrics.JmxReporter", "pca", NO_OP, None,
       "kconnect's clients have no Java metrics to report"),
    _p("metrics.num.samples", INT, LOW, "2", "pca", NO_OP, None, "kconnect's clients have no Java metrics"),
    _p("metrics.recording.level", STRING, LOW, "INFO", "pca", NO_OP, None,
       "kconnect's clients have no Java metrics"),
    _p("metrics.sample.window.ms", LONG, LOW, "30000", "pca", NO_OP, None,
       "kconnect's clients have no Java metrics"),
    _p("partition.assignment.strategy", LIST, MEDIUM,
       "class org.apache.kafka.clients.consumer.RangeAssignor,"
       "class org.apache.kafka.clients.consumer.CooperativeStickyAssignor",
       "c", MAPPED, "partition_assignment_strategy",
       "RangeAssignor, RoundRobinAssignor, StickyAssignor; CooperativeStickyAssignor is skipped "
       "(aiokafka rebalances eagerly)"),
    _p("partitioner.adaptive.partitioning.enable", BOOLEAN, LOW, "true", "p", NO_OP, None,
       "affects only which partition a record without a key goes to"),
    _p("partitioner.availability.timeout.ms", LONG, LOW, "0", "p", NO_OP, None,
       "affects only which partition a record without a key goes to"),
    _p("partitioner.class", CLASS, MEDIUM, None, "p", UNSUPPORTED, None,
       "Java partitioner classes cannot run in Python; records are partitioned as Java's default "
       "partitioner does"),
    _p("partitioner.ignore.keys", BOOLEAN, MEDIUM, "false", "p", NO_OP, None,
       "only false: records with a key go to the partition of the key's murmur2 hash", only=("false",)),
    _p("receive.buffer.bytes", INT, MEDIUM, "32768", "pca", NO_OP, None,
       "sockets use the operating system's buffer sizes",
       per_client={"c": (INT, MEDIUM, "65536"), "a": (INT, MEDIUM, "65536")}),
    _p("reconnect.backoff.max.ms", LONG, LOW, "1000", "pca", NO_OP, None,
       "aiokafka reconnects after retry.backoff.ms"),
    _p("reconnect.backoff.ms", LONG, LOW, "50", "pca", NO_OP, None,
       "aiokafka reconnects after retry.backoff.ms"),
    _p("request.timeout.ms", INT, MEDIUM, "30000", "pca", MAPPED, "request_timeout_ms", ""),
    _p("retries", INT, HIGH, "2147483647", "pa", MAPPED, "(batch retries)",
       "producer: 0 fails a source record's batch on its first error (DeliveryPolicy); admin: no effect",
       per_client={"a": (INT, LOW, "2147483647")}),
    _p("retry.backoff.max.ms", LONG, LOW, "1000", "pca", NO_OP, None,
       "aiokafka backs off a constant retry.backoff.ms"),
    _p("retry.backoff.ms", LONG, LOW, "100", "pca", MAPPED, "retry_backoff_ms", ""),
    _p("sasl.client.callback.handler.class", CLASS, MEDIUM, None, "pca", UNSUPPORTED, None,
       "Java callback handlers cannot run in Python"),
    _p("sasl.jaas.config", PASSWORD, MEDIUM, None, "pca", MAPPED, "security",
       "PlainLoginModule or ScramLoginModule: username and password become sasl_plain_username / "
       "sasl_plain_password"),
    _p("sasl.kerberos.kinit.cmd", STRING, LOW, "/usr/bin/kinit", "pca", NO_OP, None,
       "used by GSSAPI only, which kconnect refuses"),
    _p("sasl.kerberos.min.time.before.relogin", LONG, LOW, "60000", "pca", NO_OP, None,
       "used by GSSAPI only, which kconnect refuses"),
    _p("sasl.kerberos.service.name", STRING, MEDIUM, None, "pca", NO_OP, None,
       "used by GSSAPI only, which kconnect refuses"),
    _p("sasl.kerberos.ticket.renew.jitter", DOUBLE, LOW, "0.05", "pca", NO_OP, None,
       "used by GSSAPI only, which kconnect refuses"),
    _p("sasl.kerberos.ticket.renew.window.factor", DOUBLE, LOW, "0.8", "pca", NO_OP, None,
       "used by GSSAPI only, which kconnect refuses"),
    _p("sasl.login.callback.handler.class", CLASS, MEDIUM, None, "pca", UNSUPPORTED, None,
       "Java callback handlers cannot run in Python"),
    _p("sasl.login.class", CLASS, MEDIUM, None, "pca", UNSUPPORTED, None,
       "Java login classes cannot run in Python"),
    _p("sasl.login.connect.timeout.ms", INT, LOW, None, "pca", NO_OP, None,
       "used by OAUTHBEARER only, which kconnect refuses"),
    _p("sasl.login.read.timeout.ms", INT, LOW, None, "pca", NO_OP, None,
       "used by OAUTHBEARER only, which kconnect refuses"),
    _p("sasl.login.refresh.buffer.seconds", SHORT, LOW, "300", "pca", NO_OP, None,
       "used by OAUTHBEARER only, which kconnect refuses"),
    _p("sasl.login.refresh.min.period.seconds", SHORT, LOW, "60", "pca", NO_OP, None,
       "used by OAUTHBEARER only, which kconnect refuses"),
    _p("sasl.login.refresh.window.factor", DOUBLE, LOW, "0.8", "pca", NO_OP, None,
       "used by OAUTHBEARER only, which kconnect refuses"),
    _p("sasl.login.refresh.window.jitter", DOUBLE, LOW, "0.05", "pca", NO_OP, None,
       "used by OAUTHBEARER only, which kconnect refuses"),
    _p("sasl.login.retry.backoff.max.ms", LONG, LOW, "10000", "pca", NO_OP, None,
       "used by OAUTHBEARER only, which kconnect refuses"),
    _p("sasl.login.retry.backoff.ms", LONG, LOW, "100", "pca", NO_OP, None,
       "used by OAUTHBEARER only, which kconnect refuses"),
    _p("sasl.mechanism", STRING, MEDIUM, "GSSAPI", "pca", MAPPED, "sasl_mechanism",
       "PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512 (GSSAPI and OAUTHBEARER are refused)",
       only=("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512")),
    _p("sasl.oauthbearer.assertion.algorithm", STRING, MEDIUM, "RS256", "pca", NO_OP, None,
       "used by OAUTHBEARER only, which kconnect refuses"),
    _p("sasl.oauthbearer.assertion.claim.aud", STRING, MEDIUM, None, "pca", NO_OP, None,
       "used by OAUTHBEARER only, which kconnect refuses"),
    _p("sasl.oauthbearer.assertion.claim.exp.seconds", INT, LOW, "300", "pca", NO_OP, None,
       "used by OAUTHBEARER only, which kconnect refuses"),
    _p("sasl.oauthbearer.assertion.claim.iss", STRING, MEDIUM, None, "pca", NO_OP, None,
       "used by OAUTHBEARER only, which kconnect refuses"),
    _p("sasl.oauthbearer.assertion.claim.jti.include", BOOLEAN, MEDIUM, "false", "pca", NO_OP, None,
       "used by OAUTHBEARER only, which kconnect refuses"),
    _p("sasl.oauthbearer.assertion.claim.nbf.seconds", INT, LOW, "60", "pca", NO_OP, None,
       "used by OAUTHBEARER only, which kconnect refuses"),
    _p("sasl.oauthbearer.assertion.claim.sub", STRING, MEDIUM, None, "pca", NO_OP, None,
       "used by OAUTHBEARER only, which kconnect refuses"),
    _p("sasl.oauthbearer.assertion.file", STRING, MEDIUM, None, "pca", NO_OP, None,
       "used by OAUTHBEARER only, which kconnect refuses"),
    _p("sasl.oauthbearer.assertion.private.key.file", STRING, MEDIUM, None, "pca", NO_OP, None,
       "used by OAUTHBEARER only, which kconnect refuses"),
    _p("sasl.oauthbearer.assertion.private.key.passphrase", PASSWORD, MEDIUM, None, "pca", NO_OP, None,
       "used by OAUTHBEARER only, which kconnect refuses"),
    _p("sasl.oauthbearer.assertion.template.file", STRING, MEDIUM, None, "pca", NO_OP, None,
       "used by OAUTHBEARER only, which kconnect refuses"),
    _p("sasl.oauthbearer.client.credentials.client.id", STRING, MEDIUM, None, "pca", NO_OP, None,
       "used by OAUTHBEARER only, which kconnect refuses"),
    _p("sasl.oauthbearer.client.credentials.client.secret", PASSWORD, MEDIUM, None, "pca", NO_OP, None,
       "used by OAUTHBEARER only, which kconnect refuses"),
    _p("sasl.oauthbearer.clock.skew.seconds", INT, LOW, "30", "pca", NO_OP, None,
       "used by OAUTHBEARER only, which kconnect refuses"),
    _p("sasl.oauthbearer.expected.audience", LIST, HIGH, "", "pca", NO_OP, None,
       "used by OAUTHBEARER only, which kconnect refuses"),
    _p("sasl.oauthbearer.expected.issuer", STRING, HIGH, None, "pca", NO_OP, None,
       "used by OAUTHBEARER only, which kconnect refuses"),
    _p("sasl.oauthbearer.header.urlencode", BOOLEAN, LOW, "false", "pca", NO_OP, None,
       "used by OAUTHBEARER only, which kconnect refuses"),
    _p("sasl.oauthbearer.jwks.endpoint.refresh.ms", LONG, LOW, "3600000", "pca", NO_OP, None,
       "used by OAUTHBEARER only, which kconnect refuses"),
    _p("sasl.oauthbearer.jwks.endpoint.retry.backoff.max.ms", LONG, LOW, "10000", "pca", NO_OP, None,
       "used by OAUTHBEARER only, which kconnect refuses"),
    _p("sasl.oauthbearer.jwks.endpoint.retry.backoff.ms", LONG, LOW, "100", "pca", NO_OP, None,
       "used by OAUTHBEARER only, which kconnect refuses"),
    _p("sasl.oauthbearer.jwks.endpoint.url", STRING, MEDIUM, None, "pca", NO_OP, None,
       "used by OAUTHBEARER only, which kconnect refuses"),
    _p("sasl.oauthbearer.jwt.retriever.class", CLASS, MEDIUM,
       "org.apache.kafka.common.security.oauthbearer.DefaultJwtRetriever",
       "pca", NO_OP, None, "used by OAUTHBEARER only, which kconnect refuses"),
    _p("sasl.oauthbearer.jwt.validator.class", CLASS, MEDIUM,
       "org.apache.kafka.common.security.oauthbearer.DefaultJwtValidator",
       "pca", NO_OP, None, "used by OAUTHBEARER only, which kconnect refuses"),
    _p("sasl.oauthbearer.scope", STRING, MEDIUM, None, "pca", NO_OP, None,
       "used by OAUTHBEARER only, which kconnect refuses"),
    _p("sasl.oauthbearer.scope.claim.name", STRING, LOW, "scope", "pca", NO_OP, None,
       "used by OAUTHBEARER only, which kconnect refuses"),
    _p("sasl.oauthbearer.sub.claim.name", STRING, LOW, "sub", "pca", NO_OP, None,
       "used by OAUTHBEARER only, which kconnect refuses"),
    _p("sasl.oauthbearer.token.endpoint.url", STRING, MEDIUM, None, "pca", NO_OP, None,
       "used by OAUTHBEARER only, which kconnect refuses"),
    _p("security.protocol", STRING, MEDIUM, "PLAINTEXT", "pca", MAPPED, "security_protocol",
       "PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL", only=("PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL")),
    _p("security.providers", STRING, LOW, None, "pca", UNSUPPORTED, None,
       "Java security providers cannot run in Python"),
    _p("send.buffer.bytes", INT, MEDIUM, "131072", "pca", NO_OP, None,
       "sockets use the operating system's buffer sizes"),
    _p("session.timeout.ms", INT, HIGH, "45000", "c", MAPPED, "session_timeout_ms", ""),
    _p("share.acknowledgement.mode", STRING, MEDIUM, "implicit", "c", NO_OP, None,
       "for share consumers only, which Connect does not use"),
    _p("share.acquire.mode", STRING, MEDIUM, "BATCH_OPTIMIZED", "c", NO_OP, None,
       "for share consumers only, which Connect does not use"),
    _p("socket.connection.setup.timeout.max.ms", LONG, MEDIUM, "30000", "pca", NO_OP, None,
       "aiokafka bounds a connection attempt by request.timeout.ms"),
    _p("socket.connection.setup.timeout.ms", LONG, MEDIUM, "10000", "pca", NO_OP, None,
       "aiokafka bounds a connection attempt by request.timeout.ms"),
    _p("ssl.cipher.suites", LIST, LOW, "", "pca", UNSUPPORTED, None,
       "Java's cipher suite names have no OpenSSL equivalent kconnect could apply faithfully"),
    _p("ssl.enabled.protocols", LIST, MEDIUM, "TLSv1.2,TLSv1.3", "pca", MAPPED, "security",
       "TLSv1.2 and TLSv1.3: the lowest and highest listed bound the context's versions",
       only=("TLSv1.2", "TLSv1.3")),
    _p("ssl.endpoint.identification.algorithm", STRING, LOW, "https", "pca", MAPPED, "security",
       "https checks the broker's host name against its certificate; empty turns the check off"),
    _p("ssl.engine.factory.class", CLASS, LOW, None, "pca", UNSUPPORTED, None,
       "Java SSL engine factories cannot run in Python"),
    _p("ssl.key.password", PASSWORD, HIGH, None, "pca", MAPPED, "security",
       "the password of the PEM private key"),
    _p("ssl.keymanager.algorithm", STRING, LOW, "SunX509", "pca", NO_OP, None,
       "Java key manager algorithm; Python's ssl module has one"),
    _p("ssl.keystore.certificate.chain", PASSWORD, HIGH, None, "pca", MAPPED, "security",
       "PEM client certificate chain (with ssl.keystore.key)"),
    _p("ssl.keystore.key", PASSWORD, HIGH, None, "pca", MAPPED, "security",
       "PEM client private key (with ssl.keystore.certificate.chain)"),
    _p("ssl.keystore.location", STRING, HIGH, None, "pca", MAPPED, "security",
       "a PEM file with the client's private key and certificate chain"),
    _p("ssl.keystore.password", PASSWORD, HIGH, None, "pca", MAPPED, "security",
       "refused with PEM keystores, as Kafka does; JKS and PKCS12 keystores are unsupported"),
    _p("ssl.keystore.type", STRING, MEDIUM, "JKS", "pca", MAPPED, "security",
       "PEM only; JKS and PKCS12 are unsupported (convert them to PEM)"),
    _p("ssl.protocol", STRING, MEDIUM, "TLSv1.3", "pca", NO_OP, None,
       "Java's SSLContext protocol; ssl.enabled.protocols bounds the versions used"),
    _p("ssl.provider", STRING, MEDIUM, None, "pca", UNSUPPORTED, None,
       "Java security providers cannot run in Python"),
    _p("ssl.secure.random.implementation", STRING, LOW, None, "pca", NO_OP, None,
       "OpenSSL's random generator is used"),
    _p("ssl.trustmanager.algorithm", STRING, LOW, "PKIX", "pca", NO_OP, None,
       "Java trust manager algorithm; certificates are checked by OpenSSL"),
    _p("ssl.truststore.certificates", PASSWORD, HIGH, None, "pca", MAPPED, "security",
       "inline PEM CA certificates"),
    _p("ssl.truststore.location", STRING, HIGH, None, "pca", MAPPED, "security",
       "a PEM file of CA certificates"),
    _p("ssl.truststore.password", PASSWORD, HIGH, None, "pca", MAPPED, "security",
       "refused with PEM truststores, as Kafka does; JKS and PKCS12 truststores are unsupported"),
    _p("ssl.truststore.type", STRING, MEDIUM, "JKS", "pca", MAPPED, "security",
       "PEM only; JKS and PKCS12 are unsupported (convert them to PEM)"),
    _p("transaction.timeout.ms", INT, LOW, "60000", "p", MAPPED, "transaction_timeout_ms",
       "used by source tasks' transactional producers (exactly.once.source.support=enabled)"),
    _p("transaction.two.phase.commit.enable", BOOLEAN, LOW, "false", "p", NO_OP, None,
       "aiokafka has no two-phase commit (KIP-939)", only=("false",)),
    _p("transactional.id", STRING, LOW, None, "p", UNSUPPORTED, None,
       "under exactly.once.source.support=enabled the worker sets it to <group.id>-<connector>-<task>, "
       "as Kafka does; a configured one is refused"),
    _p("value.deserializer", CLASS, HIGH, REQUIRED, "c", NO_OP, None,
       "Connect always reads bytes and converts them with its converters"),
    _p("value.serializer", CLASS, HIGH, REQUIRED, "p", NO_OP, None,
       "Connect always writes the converters' bytes"),
)
# fmt: on

PROPERTIES: Mapping[str, ClientProperty] = {p.name: p for p in _TABLE}
"""Every Java producer, consumer and admin client property, by name."""


def client_property(kind: ClientKind, name: str) -> ClientProperty | None:
    """The property `name` of client `kind`, or None when that client has no such key."""
    prop = PROPERTIES.get(name)
    return prop if prop is not None and kind in prop.kinds else None


@functools.cache
def client_config_def(kind: ClientKind) -> ConfigDef:
    """Kafka's ConfigDef of client `kind` (types, importances, defaults), documented with kconnect's notes."""
    config_def = ConfigDef()
    for prop in _TABLE:
        if kind not in prop.kinds:
            continue
        spec = prop.spec_for(kind)
        doc = f"kconnect: {prop.support.value}" + (f" ({prop.note})" if prop.note else "")
        config_def.define(
            prop.name, type=spec.type, importance=spec.importance, default=spec.default, documentation=doc
        )
    return config_def


def client_problems(kind: ClientKind, props: Mapping[str, str]) -> dict[str, str]:
    """Each key of `props` (client `kind`'s, unprefixed) that kconnect refuses, with the reason.

    Covers unknown keys, values Kafka would not parse, unsupported keys and values. The security
    keys' combined rules (JAAS, PEM stores) are `kconnect.security.security_problems`.
    """
    problems: dict[str, str] = {}
    for name, value in props.items():
        prop = client_property(kind, name)
        if prop is None:
            problems[name] = f"{name} is not a Kafka {kind.value} configuration"
            continue
        problem = prop.problem(kind, value)
        if problem is not None:
            problems[name] = problem
    return problems


def no_effect_props(kind: ClientKind, props: Mapping[str, str]) -> dict[str, str]:
    """Each key of `props` (client `kind`'s, unprefixed) that kconnect accepts without effect
    (`Support.NO_OP`), with the reason; `kconnect.config.unused_keys` logs them."""
    found: dict[str, str] = {}
    for name in props:
        prop = client_property(kind, name)
        if prop is not None and prop.support is NO_OP:
            found[name] = prop.note
    return found


def worker_client_keys(worker: Mapping[str, str]) -> dict[str, str]:
    """The worker's top-level keys that are properties of all three clients (``security.protocol``,
    ``client.dns.lookup``, ``metric.reporters``...), whether the worker's clients or the worker reads them."""
    return {
        k: v for k, v in worker.items() if k in PROPERTIES and len(PROPERTIES[k].kinds) == len(ClientKind)
    }


#: Top-level worker keys that share a client property's name but are the worker's own (Kafka's
#: WorkerConfig reads them for itself), so they are not handed to the worker's clients.
_WORKER_OWN_KEYS = frozenset(
    {
        "bootstrap.servers",
        "client.id",
        "config.providers",
        "metric.reporters",
        "metrics.num.samples",
        "metrics.recording.level",
        "metrics.sample.window.ms",
    }
)


def internal_client_props(worker: Mapping[str, str]) -> dict[str, str]:
    """The properties of the worker's own clients: ``bootstrap.servers`` and every top-level worker key
    that is a property of all three clients (``security.protocol``, ``sasl.*``, ``ssl.*``,
    ``request.timeout.ms``...), as Kafka's internal clients take the worker's originals."""
    props = {BOOTSTRAP_SERVERS_CONFIG: worker_text(worker, BOOTSTRAP_SERVERS_CONFIG)}
    for name, value in worker.items():
        prop = PROPERTIES.get(name)
        if prop is not None and len(prop.kinds) == len(ClientKind) and name not in _WORKER_OWN_KEYS:
            props[name] = value
    return props


def _is_rest_key(worker_key: str) -> bool:
    """``admin.listeners`` (and its ``admin.listeners.https.*`` keys) configure REST, not the admin client."""
    return worker_key == "admin.listeners" or worker_key.startswith("admin.listeners.")


def worker_admin_props(worker: Mapping[str, str]) -> dict[str, str]:
    """The worker's ``admin.*`` keys, unprefixed (not ``admin.listeners``, a REST key)."""
    return {
        k[len("admin.") :]: v for k, v in worker.items() if k.startswith("admin.") and not _is_rest_key(k)
    }


def worker_client_problems(worker: Mapping[str, str]) -> dict[str, str]:
    """Each client key of a worker config that kconnect refuses, by its worker key, with the reason.

    Checks ``producer.*``, ``consumer.*``, ``admin.*`` and the top-level client keys, one by one and
    (security) as each client will combine them. Called at worker start-up.
    """
    problems: dict[str, str] = {}
    internal = internal_client_props(worker)
    for name, reason in {
        **client_problems(ClientKind.ADMIN, internal),
        **security_problems(internal),
    }.items():
        problems.setdefault(name, reason)
    bootstrap = {"bootstrap.servers": internal["bootstrap.servers"]}
    for kind in ClientKind:
        prefix = f"{kind.value}."
        own = (
            worker_admin_props(worker)
            if kind is ClientKind.ADMIN
            else {k[len(prefix) :]: v for k, v in worker.items() if k.startswith(prefix)}
        )
        combined = {**(internal if kind is ClientKind.ADMIN else bootstrap), **own}
        found = {**client_problems(kind, own), **security_problems(combined)}
        for name, reason in found.items():
            problems.setdefault(
                prefix + name if name in own or kind is not ClientKind.ADMIN else name, reason
            )
    return problems
