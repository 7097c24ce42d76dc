package dev.kconnect.java;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.connect.runtime.isolation.LoaderSwap;
import org.apache.kafka.connect.runtime.isolation.PluginDesc;
import org.apache.kafka.connect.runtime.isolation.Plugins;
import org.apache.kafka.connect.source.SourceConnector;

/**
 * A source connector's answers to the exactly-once questions a distributed worker's validate asks
 * (KIP-618, Kafka's DistributedHerder.validateSourceConnectorConfig): {@code {"op": "source_support",
 * "class": "...", "version": "...", "question": "exactly_once" | "transaction_boundaries", "config":
 * {...}}} asks a fresh instance, in its plugin's class loader, {@code exactlyOnceSupport(config)} or
 * {@code canDefineTransactionBoundaries(config)}, and answers {@code {"answer": "SUPPORTED" |
 * "UNSUPPORTED" | null}}, or {@code {"raised": message}} when the connector threw (the worker turns
 * that into Kafka's error text).
 */
final class SourceSupport {
  private SourceSupport() {}

  /** The connector's answer to the request's question (see the class comment). */
  static ObjectNode ask(Plugins plugins, PluginDesc<?> chosen, JsonNode body, ObjectMapper json) throws Exception {
    Map<String, String> config = new HashMap<>();
    body.path("config").fields().forEachRemaining(e -> config.put(e.getKey(), e.getValue().asText()));
    boolean exactlyOnce = body.path("question").asText().equals("exactly_once");
    ObjectNode answer = json.createObjectNode();
    try (LoaderSwap swap = plugins.withClassLoader(chosen.loader())) {
      SourceConnector connector = (SourceConnector) chosen.pluginClass().getDeclaredConstructor().newInstance();
      Object said;
      try {
        said = exactlyOnce ? connector.exactlyOnceSupport(config) : connector.canDefineTransactionBoundaries(config);
      } catch (Throwable raised) {
        answer.put("raised", raised.getMessage() == null ? "" : raised.getMessage());
        return answer;
      }
      answer.put("answer", said == null ? null : said.toString());
    }
    return answer;
  }
}
