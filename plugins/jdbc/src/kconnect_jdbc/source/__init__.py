"""JdbcSourceConnector: tables (or a query) into Kafka, with Confluent's modes, offsets and keys."""
