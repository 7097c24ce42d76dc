package dev.kconnect.java;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.Map;
import org.apache.kafka.connect.json.JsonConverter;
import org.apache.kafka.connect.json.JsonConverterConfig;

/**
 * Source partitions and offsets as Kafka's worker hands them to a connector: read back through the
 * schemaless {@link JsonConverter} Kafka stores them with, so a whole number is a {@code Long} and a
 * fraction a {@code Double} (Kafka's {@code Worker.normalizeSourceConnectorOffsets} and its offset
 * readers do the same).
 */
final class OffsetJson {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final JsonConverter CONVERTER = new JsonConverter();

  static {
    CONVERTER.configure(Map.of(JsonConverterConfig.SCHEMAS_ENABLE_CONFIG, "false"), false);
  }

  private OffsetJson() {}

  /** The map {@code node} (an object) as Kafka's converter reads it; null for JSON null. */
  @SuppressWarnings("unchecked")
  static Map<String, Object> toConnect(JsonNode node) throws Exception {
    if (node == null || node.isNull() || node.isMissingNode()) {
      return null;
    }
    return (Map<String, Object>) CONVERTER.toConnectData("", JSON.writeValueAsBytes(node)).value();
  }
}
