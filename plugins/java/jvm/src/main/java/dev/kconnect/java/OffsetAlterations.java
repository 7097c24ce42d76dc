package dev.kconnect.java;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.connector.Connector;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.runtime.isolation.LoaderSwap;
import org.apache.kafka.connect.runtime.isolation.PluginDesc;
import org.apache.kafka.connect.runtime.isolation.Plugins;
import org.apache.kafka.connect.sink.SinkConnector;
import org.apache.kafka.connect.source.SourceConnector;

/**
 * KIP-875's question to a connector, as Kafka's {@code Worker.modifyConnectorOffsets} asks it: a
 * fresh instance (never initialized or started: the connector is STOPPED) in its plugin's class
 * loader, {@code alterOffsets(config, offsets)}. Request {@code {"op": "connector_alter_offsets",
 * "class", "version", "name", "config", "offsets"}}: a source's offsets are {@code [{"partition":
 * {...}, "offset": {...} | null}]} (read as Kafka's worker normalizes them, {@link OffsetJson}), a
 * sink's {@code [{"topic", "partition", "offset": n | null}]}. Answers {@code {"answered": bool}},
 * or {@code {"refused": message}} when the connector throws a {@link ConnectException} (its refusal of
 * these offsets) or an {@link UnsupportedOperationException} (Kafka's text for it).
 */
final class OffsetAlterations {
  private static final ObjectMapper JSON = new ObjectMapper();

  private OffsetAlterations() {}

  /** Asks a fresh instance of {@code chosen} whether it accepts the offsets of {@code body} (see the class comment). */
  static ObjectNode alter(Plugins plugins, PluginDesc<?> chosen, JsonNode body) throws Exception {
    ObjectNode answer = JSON.createObjectNode();
    Map<String, String> config = ConnectorInstances.stringMap(body.path("config"));
    try (LoaderSwap swap = plugins.withClassLoader(chosen.loader())) {
      Connector connector = (Connector) chosen.pluginClass().getDeclaredConstructor().newInstance();
      boolean answered;
      try {
        if (connector instanceof SinkConnector sink) {
          answered = sink.alterOffsets(config, sinkOffsets(body.path("offsets")));
        } else {
          answered = ((SourceConnector) connector).alterOffsets(config, sourceOffsets(body.path("offsets")));
        }
      } catch (UnsupportedOperationException unsupported) {
        answer.put("refused", "Failed to modify offsets for connector " + body.path("name").asText()
            + " because it doesn't support external modification of offsets");
        return answer;
      } catch (ConnectException refused) {
        answer.put("refused", String.valueOf(refused.getMessage()));
        return answer;
      }
      answer.put("answered", answered);
    }
    return answer;
  }

  private static Map<Map<String, ?>, Map<String, ?>> sourceOffsets(JsonNode offsets) throws Exception {
    Map<Map<String, ?>, Map<String, ?>> parsed = new HashMap<>();
    for (JsonNode item : offsets) {
      parsed.put(OffsetJson.toConnect(item.path("partition")), OffsetJson.toConnect(item.path("offset")));
    }
    return parsed;
  }

  private static Map<TopicPartition, Long> sinkOffsets(JsonNode offsets) {
    Map<TopicPartition, Long> parsed = new HashMap<>();
    for (JsonNode item : offsets) {
      JsonNode offset = item.path("offset");
      TopicPartition partition = new TopicPartition(item.path("topic").asText(), item.path("partition").asInt());
      parsed.put(partition, offset.isNull() || offset.isMissingNode() ? null : offset.asLong());
    }
    return parsed;
  }
}
