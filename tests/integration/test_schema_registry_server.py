"""The test schema registry (Apicurio Registry's Confluent API, ``tests/schema_registry_server.py``) is real
and behaves as the converters' tests rely on: ids, persistence across restarts, TLS, compatibility errors,
and confluent-kafka's own client against it."""

from __future__ import annotations

import base64
import json
import socket
import ssl
import uuid
from typing import Any

import httpx
import pytest
from confluent_kafka.schema_registry import Schema, SchemaRegistryClient
from confluent_kafka.schema_registry.error import SchemaRegistryError
from confluent_kafka.schema_registry.protobuf import ProtobufDeserializer, ProtobufSerializer
from confluent_kafka.serialization import MessageField, SerializationContext
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

from tests.schema_registry_server import CONTENT_TYPE

pytestmark = pytest.mark.integration

HEADERS = {"Content-Type": CONTENT_TYPE}


def avro_record(name: str, *fields: tuple[str, Any]) -> str:
    """A compact Avro record schema."""
    record = {"type": "record", "name": name, "fields": [{"name": n, "type": t} for n, t in fields]}
    return json.dumps(record, separators=(",", ":"))


def subject() -> str:
    return f"topic-{uuid.uuid4().hex[:10]}-value"


def register(http: httpx.Client, subject: str, schema: str, schema_type: str = "AVRO") -> httpx.Response:
    body = {"schema": schema, "schemaType": schema_type}
    return http.post(f"/subjects/{subject}/versions", json=body, headers=HEADERS)


def test_a_schema_registered_is_read_back_by_id_and_shares_its_id_across_subjects(
    schema_registry: Any,
) -> None:
    schema = avro_record("Reading", ("id", "long"), ("label", "string"))
    first, second = subject(), subject()
    with schema_registry.client() as http:
        created = register(http, first, schema)
        assert created.status_code == 200, created.text
        schema_id = created.json()["id"]
        assert register(http, second, schema).json() == {"id": schema_id}
        assert register(http, first, schema).json() == {"id": schema_id}

        by_id = http.get(f"/schemas/ids/{schema_id}")
        assert by_id.status_code == 200
        assert by_id.json()["schema"] == schema
        latest = http.get(f"/subjects/{first}/versions/latest").json()
        assert (latest["subject"], latest["version"], latest["id"]) == (first, 1, schema_id)
        versions = http.get(f"/schemas/ids/{schema_id}/versions").json()
        assert sorted((v["subject"], v["version"]) for v in versions) == sorted([(first, 1), (second, 1)])
        assert http.get(f"/subjects/{first}/versions/2").json()["error_code"] == 40402
        assert http.get("/schemas/ids/987654321").json()["error_code"] == 40403


def test_stop_refuses_connections_and_start_keeps_every_schema_and_id(registry_compatibility: Any) -> None:
    registry = registry_compatibility
    name = subject()
    schemas = [avro_record("Evolving", ("a", "int")), avro_record("Evolving", ("a", "int"), ("b", "long"))]
    with registry.client() as http:
        ids = [register(http, name, schemas[0]).json()["id"]]
        # FORWARD lets a required field in; Apicurio takes a subject's level once the subject exists,
        # and a subject's NONE there means "the global level".
        registry.set_compatibility("FORWARD", subject=name)
        ids.append(register(http, name, schemas[1]).json()["id"])
    port, url = registry.port, registry.url

    registry.stop()
    assert not registry.running
    with pytest.raises(ConnectionRefusedError), socket.create_connection(("127.0.0.1", port), timeout=5):
        pass

    registry.start()
    assert (registry.port, registry.url) == (port, url)
    with registry.client() as http:
        assert [http.get(f"/schemas/ids/{i}").json()["schema"] for i in ids] == schemas
        assert http.get(f"/subjects/{name}/versions").json() == [1, 2]
        assert http.get(f"/config/{name}").json() == {"compatibilityLevel": "FORWARD"}
        assert http.get("/config").json() == {"compatibilityLevel": "BACKWARD"}
        assert [register(http, name, schema).json()["id"] for schema in schemas] == ids


def test_a_halted_registry_hangs_requests_and_answers_them_after_resume(schema_registry: Any) -> None:
    with schema_registry.client(timeout=2.0) as http:
        schema_registry.halt()
        try:
            with pytest.raises(httpx.ReadTimeout):
                http.get("/subjects")
        finally:
            schema_registry.resume()
        with schema_registry.client(timeout=30.0) as patient:
            assert patient.get("/subjects").status_code == 200


def test_backward_compatibility_refuses_an_incompatible_schema_with_409_and_bad_text_with_422(
    schema_registry: Any,
) -> None:
    name = subject()
    with schema_registry.client() as http:
        assert http.get("/config").json() == {"compatibilityLevel": "BACKWARD"}
        assert register(http, name, avro_record("Strict", ("a", "int"))).status_code == 200
        refused = register(http, name, avro_record("Strict", ("a", "int"), ("b", "string")))
        assert refused.status_code == 409
        assert refused.json()["error_code"] == 409
        assert name in refused.json()["message"]
        invalid = register(http, subject(), '{"type": "recordz"}')
        assert (invalid.status_code, invalid.json()["error_code"]) == (422, 42201)


def test_confluent_kafkas_client_registers_and_fetches(schema_registry: Any) -> None:
    client = SchemaRegistryClient({"url": schema_registry.url})
    name = subject()
    schema = Schema(avro_record("FromPython", ("n", "long")), "AVRO")
    schema_id = client.register_schema(name, schema)

    fetched = client.get_schema(schema_id)
    assert (fetched.schema_str, fetched.schema_type) == (schema.schema_str, "AVRO")
    latest = client.get_latest_version(name)
    assert (latest.schema_id, latest.subject, latest.version) == (schema_id, name, 1)
    assert client.lookup_schema(name, schema).schema_id == schema_id

    with pytest.raises(SchemaRegistryError) as refused:
        client.register_schema(name, Schema(avro_record("FromPython", ("n", "string")), "AVRO"))
    assert (refused.value.http_status_code, refused.value.error_code) == (409, 409)


def test_the_tls_registry_answers_over_https_with_the_test_ca_only(schema_registry_tls: Any) -> None:
    registry = schema_registry_tls
    assert registry.url.startswith("https://127.0.0.1:")
    with registry.client() as http:
        assert register(http, subject(), avro_record("Secure", ("a", "int"))).status_code == 200
    with httpx.Client(verify=ssl.create_default_context(), timeout=10) as untrusting:
        with pytest.raises(httpx.ConnectError, match="CERTIFICATE_VERIFY_FAILED"):
            untrusting.get(registry.url + "/subjects")
    with httpx.Client(timeout=10) as plain, pytest.raises(httpx.HTTPError):
        plain.get(registry.url.replace("https://", "http://") + "/subjects")

    client = SchemaRegistryClient({"url": registry.url, "ssl.ca.location": str(registry.tls.ca)})
    assert client.get_subjects()


def test_the_basic_auth_registry_refuses_requests_without_its_users_credentials(
    schema_registry_basic_auth: Any,
) -> None:
    registry = schema_registry_basic_auth
    ((user, password),) = registry.users.items()
    with registry.client() as http:
        assert register(http, subject(), avro_record("Guarded", ("a", "int"))).status_code == 200
    for auth in [None, (user, "wrong"), ("someone-else", password)]:
        refused = httpx.get(registry.url + "/subjects", auth=auth, timeout=10)
        assert refused.status_code == 401, (auth, refused.text)
    anonymous = httpx.post(
        registry.url + f"/subjects/{subject()}/versions", json={"schema": '"string"'}, timeout=10
    )
    assert anonymous.status_code == 401

    client = SchemaRegistryClient({"url": registry.url, "basic.auth.user.info": f"{user}:{password}"})
    assert client.get_subjects()
    with pytest.raises(SchemaRegistryError) as unauthorised:
        SchemaRegistryClient({"url": registry.url}).get_subjects()
    assert unauthorised.value.http_status_code == 401


def test_protobuf_schemas_are_echoed_as_registered_base64_or_text(schema_registry: Any) -> None:
    """confluent-kafka's Python serializer registers a base64 FileDescriptorProto and reads it back;
    a ``.proto`` text comes back as text even with ``?format=serialized`` (Confluent converts)."""
    file = descriptor_pb2.FileDescriptorProto(name="reading.proto", package="kc", syntax="proto3")
    file.message_type.add(name="Reading").field.add(name="a", number=1, type=5, label=1)
    pool = descriptor_pool.DescriptorPool()
    pool.Add(file)
    reading = message_factory.GetMessageClass(pool.FindMessageTypeByName("kc.Reading"))
    client = SchemaRegistryClient({"url": schema_registry.url})
    topic = subject().removesuffix("-value")
    context = SerializationContext(topic, MessageField.VALUE)

    data = ProtobufSerializer(reading, client, {"use.deprecated.format": False})(reading(a=7), context)
    assert data is not None
    schema_id = int.from_bytes(data[1:5], "big")
    registered = client.get_schema(schema_id)
    assert base64.b64decode(registered.schema_str) == file.SerializeToString()
    deserializer = ProtobufDeserializer(reading, {"use.deprecated.format": False}, client)
    assert deserializer(data, context).a == 7

    text = 'syntax = "proto3";\npackage kc;\n\nmessage Reading {\n  int32 a = 1;\n}\n'
    text_id = client.register_schema(subject(), Schema(text, "PROTOBUF"))
    with schema_registry.client() as http:
        assert http.get(f"/schemas/ids/{text_id}", params={"format": "serialized"}).json()["schema"] == text
