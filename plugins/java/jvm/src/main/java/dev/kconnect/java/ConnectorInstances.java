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
 * from Python (kconnect_java.connector): {@code connector_create}, {@code connector_start}, {@code
 * connector_task_configs}, {@code connector_stop}, and {@code connector_events}, which waits up to
 * {@code wait_ms} for what the connector asked through its context ({@code {"type": "reconfigure"}},
 * {@code {"type": "error", "trace": "..."}}, or an offset read {@code {"type": "offsets", ...}} that
 * Python answers with {@code connector_offsets_answer}). Thread-safe: the event wait and the answers
 * run beside the other calls. {@code connector_alter_offsets} is KIP-875's check on a fresh instance
 * ({@link OffsetAlterations}).
 */
final class ConnectorInstances {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Map<String, Instance> running = new ConcurrentHashMap<>();
  /** KIP-877 plugin metrics, kept in the JVM (not reported to the worker yet). */
  private final Metrics metrics = new Metrics();

  /** One instance: the connector, its class loader, what its context reported and its offset reader. */
  private record Instance(
      Connector connector, ClassLoader loader, BlockingQueue<ObjectNode> events, ConnectorOffsetReader offsets) {}

  /**
   * Instantiates the connector {@code chosen} and initializes it with a context; {@code start} starts
   * it. Two steps, so Python reads the instance's events (its offset reads among them) during start.
   */
  ObjectNode create(Plugins plugins, PluginDesc<?> chosen, JsonNode body) throws Exception {
    String id = body.path("id").asText();
    BlockingQueue<ObjectNode> events = new LinkedBlockingQueue<>();
    ConnectorOffsetReader offsets = new ConnectorOffsetReader(events);
    try (LoaderSwap swap = plugins.withClassLoader(chosen.loader())) {
      Connector connector = (Connector) chosen.pluginClass().getDeclaredConstructor().newInstance();
      PluginMetrics pluginMetrics = new PluginMetricsImpl(metrics, Map.of("connector", body.path("name").asText(id)));
      connector.initialize(new Context(events, pluginMetrics, offsets));
      running.put(id, new Instance(connector, chosen.loader(), events, offsets));
    }
    return JSON.createObjectNode();
  }

  /** The created connector's {@code start(config)}; one that throws is forgotten. */
  ObjectNode start(Plugins plugins, JsonNode body) throws Exception {
    Instance instance = instance(body);
    try (LoaderSwap swap = plugins.withClassLoader(instance.loader())) {
      instance.connector().start(stringMap(body.path("config")));
    } catch (Exception error) {
      running.remove(body.path("id").asText());
      instance.offsets().close();
      throw error;
    }
    ObjectNode answer = JSON.createObjectNode();
    answer.put("task_class", instance.connector().taskClass().getName());
    return answer;
  }

  /** The worker's answer to one of the connector's offset reads ({@link ConnectorOffsetReader#answer}). */
  ObjectNode offsetsAnswer(JsonNode body) {
    Instance instance = running.get(body.path("id").asText());
    if (instance != null) {
      instance.offsets().answer(body);
    }
    return JSON.createObjectNode();
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
      instance.offsets().close();
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
   * The context of one instance, source and sink alike: its calls become events Python reads, and
   * so do a source connector's offset reads, which wait for Python's answer.
   */
  private static final class Context implements SourceConnectorContext, SinkConnectorContext {
    private final BlockingQueue<ObjectNode> events;
    private final PluginMetrics metrics;
    private final ConnectorOffsetReader offsets;

    Context(BlockingQueue<ObjectNode> events, PluginMetrics metrics, ConnectorOffsetReader offsets) {
      this.events = events;
      this.metrics = metrics;
      this.offsets = offsets;
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
      return offsets;
    }
  }
}
