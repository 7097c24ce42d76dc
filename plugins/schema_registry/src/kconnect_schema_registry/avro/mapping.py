"""Connect schemas <-> Avro schemas, by the rules of Confluent's ``AvroData`` (kafka-connect-avro-data).

Connect -> Avro (`AvroMapping.from_connect_schema`):

* int8/int16 are ``int`` with ``connect.type``; int32, int64, float32, float64, boolean, string,
  bytes are Avro's primitives; arrays are arrays; maps with (required) string keys are maps, other
  maps arrays of ``io.confluent.connect.avro.MapEntry`` records (``key``, ``value``);
* structs are records named after the Connect name (``io.confluent.connect.avro.ConnectDefault``,
  ``ConnectDefault2``... when unnamed); an optional schema is a union with ``null``, null first, or
  last when it has a default; a field's default is the Connect default (null for optional fields);
* Decimal is ``bytes`` with ``logicalType: decimal``, ``precision`` (``connect.decimal.precision``,
  default 64) and ``scale``; Date, Time and Timestamp are ``int``/``int``/``long`` with ``date``,
  ``time-millis``, ``timestamp-millis``;
* the Connect metadata goes into properties (``connect.doc``, ``connect.version``,
  ``connect.parameters``, ``connect.default``, ``connect.name``) unless ``connect.meta.data=false``;
* a string with ``io.confluent.connect.avro.Enum`` parameters is an Avro enum
  (``enhanced.avro.schema.support``), a struct named ``io.confluent.connect.avro.Union`` an Avro
  union, bytes with ``connect.fixed.size`` a fixed.

Avro -> Connect (`AvroMapping.to_connect_schema`) inverts all of that, and maps what only Avro has:
enums to strings with ``io.confluent.connect.avro.Enum`` parameters, unions (other than with null) to
``io.confluent.connect.avro.Union`` structs, fixed to bytes with ``connect.fixed.size``, Avro field
defaults and docs to Connect defaults and ``io.confluent.connect.avro.field.doc.*`` parameters.
"""

from __future__ import annotations

from kconnect_schema_registry.avro.from_connect import FromConnect
from kconnect_schema_registry.avro.to_connect import ToConnect


class AvroMapping(FromConnect, ToConnect):
    """Confluent's ``AvroData`` schema mapping, both ways, for one converter's settings."""
