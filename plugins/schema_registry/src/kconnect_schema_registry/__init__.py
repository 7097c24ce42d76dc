"""Confluent's registry-backed converters for kconnect: Avro, Protobuf and JSON Schema.

Name them in a worker or connector config as with Confluent Platform
(``value.converter=io.confluent.connect.avro.AvroConverter`` and
``value.converter.schema.registry.url=http://registry:8081``): the bytes in Kafka are Confluent's
wire format (magic byte 0, the 4-byte schema id, the payload) and the schema registered for a
Connect schema is the one Confluent's converter registers, so topics written by either side are
read by the other. Any registry speaking Confluent's REST API works (Confluent Schema Registry,
Apicurio Registry's ``/apis/ccompat/v7``, Karapace).
"""

__version__ = "0.1.0"
