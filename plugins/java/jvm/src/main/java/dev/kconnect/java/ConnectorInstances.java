package dev.kconnect.java;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.metrics.PluginMetrics;
import org.apache.kafka.common.metrics.internals.PluginMetricsImpl;
import org.apache.kafka.connect.connector.Connector;
import org.apache.kafka.connect.runtime.isolation.LoaderSwap;
import org.apache.kafka.connect.runtime.isolation.PluginDesc;
import org.apache.kafka.connect.runtime.isolation.Plugins;
import org.apache.kafka.connect.sink.SinkConnectorContext;
import org.apache.kafka.connect.source.SourceConnectorContext;
import org.apache.kafka.connect.storage.OffsetStorageReader;

/**
 * Running Java connector instances, each in its plugin's class loader, driven one call at a time
 * from Python (kconnect_java.connector): {@code connector_start}, {@code connector_task_configs},
 * {@code connector_stop}, and {@code connector_events}, which waits up to {@code wait_ms} for what the
 * connector asked through its context ({@code {"type": "reconfigure"}} or {@code {"type": "error",
 * "trace": "..."}}). Thread-safe: the event wait runs beside the other calls.
 */
final class ConnectorInstances {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Map<String, Instance> running = new ConcurrentHashMap<>();
  /** KIP-877 plugin metrics, kept in the JVM (not reported to the worker yet). */
  private final Metrics metrics = new Metrics();

  /** One instance: the connector, its class loader and what its context reported. */
  private record Instance(Connector connector, ClassLoader loader, BlockingQueue<ObjectNode> events) {}

  /** Instantiates the connector {@code chosen}, initializes it with a context and starts it. */
  ObjectNode start(Plugins plugins, PluginDesc<?> chosen, JsonNode body) throws Exception {
    String id = body.path("id").asText();
    BlockingQueue<ObjectNode> events = new LinkedBlockingQueue<>();
    Connector connector;
    try (LoaderSwap swap = plugins.withClassLoader(chosen.loader())) {
      connector = (Connector) chosen.pluginClass().getDeclaredConstructor().newInstance();
      PluginMetrics pluginMetrics = new PluginMetricsImpl(metrics, Map.of("connector", body.path("name").asText(id)));
      connector.initialize(new Context(events, pluginMetrics));
      running.put(id, new Instance(connector, chosen.loader(), events));
      connector.start(stringMap(body.path("config")));
    } catch (Exception error) {
      running.remove(id);
      throw error;
    }
    ObjectNode answer = JSON.createObjectNode();
    answer.put("task_class", connector.taskClass().getName());
    return answer;
  }

  /** The connector's {@code taskConfigs(max_tasks)} and its task class. */
  ObjectNode taskConfigs(Plugins plugins, JsonNode body) throws Exception {
    Instance instance = instance(body);
    ObjectNode answer = JSON.createObjectNode();
    try (LoaderSwap swap = plugins.withClassLoader(instance.loader())) {
      answer.put("task_class", instance.connector().taskClass().getName());
      ArrayNode configs = answer.putArray("configs");
      List<Map<String, String>> generated = instance.connector().taskConfigs(body.path("max_tasks").asInt());
      for (Map<String, String> config : generated) {
        configs.add(JSON.valueToTree(config));
      }
    }
    return answer;
  }

  /** Stops the connector and forgets it. */
  ObjectNode stop(Plugins plugins, JsonNode body) throws Exception {
    Instance instance = running.remove(body.path("id").asText());
    if (instance != null) {
      try (LoaderSwap swap = plugins.withClassLoader(instance.loader())) {
        instance.connector().stop();
      }
    }
    return JSON.createObjectNode();
  }

  /** What the connector's context reported, waiting up to {@code wait_ms} for the first one. */
  ObjectNode events(JsonNode body) throws InterruptedException {
    ObjectNode answer = JSON.createObjectNode();
    ArrayNode list = answer.putArray("events");
    Instance instance = running.get(body.path("id").asText());
    if (instance == null) {
      answer.put("gone", true);
      return answer;
    }
    ObjectNode first = instance.events().poll(body.path("wait_ms").asLong(1000), TimeUnit.MILLISECONDS);
    if (first != null) {
      list.add(first);
      for (ObjectNode more; (more = instance.events().poll()) != null; ) {
        list.add(more);
      }
    }
    return answer;
  }

  private Instance instance(JsonNode body) {
    Instance instance = running.get(body.path("id").asText());
    if (instance == null) {
      throw new IllegalStateException("No running connector instance " + body.path("id").asText());
    }
    return instance;
  }

  static Map<String, String> stringMap(JsonNode node) {
    Map<String, String> map = new HashMap<>();
    node.fields().forEachRemaining(e -> map.put(e.getKey(), e.getValue().isNull() ? null : e.getValue().asText()));
    return map;
  }

  static String trace(Throwable error) {
    StringWriter trace = new StringWriter();
    error.printStackTrace(new PrintWriter(trace));
    return trace.toString();
  }

  /**
   * The context of one instance, source and sink alike: its calls become events Python reads. A
   * source connector's offset reader is not offered yet (kconnect_java documents it).
   */
  private static final class Context implements SourceConnectorContext, SinkConnectorContext {
    private final BlockingQueue<ObjectNode> events;
    private final PluginMetrics metrics;

    Context(BlockingQueue<ObjectNode> events, PluginMetrics metrics) {
      this.events = events;
      this.metrics = metrics;
    }

    @Override
    public PluginMetrics pluginMetrics() {
      return metrics;
    }

    @Override
    public void requestTaskReconfiguration() {
      events.add(JSON.createObjectNode().put("type", "reconfigure"));
    }

    @Override
    public void raiseError(Exception error) {
      events.add(JSON.createObjectNode().put("type", "error").put("trace", trace(error)));
    }

    @Override
    public OffsetStorageReader offsetStorageReader() {
      throw new UnsupportedOperationException(
          "kconnect does not offer a Java source connector its offset reader yet (its tasks have theirs)");
    }
  }
}
