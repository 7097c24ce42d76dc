"""JdbcSinkConnector: Kafka records into tables, with Confluent's insert and key modes."""
