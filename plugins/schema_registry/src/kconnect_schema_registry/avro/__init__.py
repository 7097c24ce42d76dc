"""Confluent's AvroConverter: the Connect <-> Avro mapping of Confluent's AvroData, Avro's schema text,
fastavro codecs compiled per schema, and the converter class (``io.confluent.connect.avro.AvroConverter``)."""
