"""kconnect-metrics: Kafka Connect's metrics at ``GET /metrics`` for Prometheus (a REST extension)."""
