package dev.kconnect.java.task;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.connect.runtime.isolation.PluginDesc;
import org.apache.kafka.connect.runtime.isolation.PluginUtils;
import org.apache.kafka.connect.runtime.isolation.Plugins;
import org.apache.kafka.connect.util.ConnectorTaskId;
import org.apache.maven.artifact.versioning.InvalidVersionSpecificationException;
import org.apache.maven.artifact.versioning.VersionRange;

/**
 * What a Java task needs from its launch (a TaskSpec as JSON, written by kconnect_spark.java_job):
 * its connector's class loader from Kafka's scan of {@code plugin.path} (the scan's {@link Plugins}
 * also load the transformations, predicates and converters the config names; scanned once per
 * executor JVM, {@link PluginScans}), the task instance,
 * and its producer, consumer and admin configs with the worker's {@code producer.}/{@code consumer.}/{@code admin.}
 * keys and the connector's {@code producer.override.}/{@code consumer.override.}/{@code
 * admin.override.} keys.
 */
final class TaskSetup {
  private static final Set<String> CONVERTERS = Set.of("key.converter", "value.converter", "header.converter");
  final JsonNode launch;
  final String taskId;
  final ConnectorTaskId id;
  final String connectorName;
  final Map<String, String> worker;
  final Map<String, String> connector;
  final Map<String, String> taskConfig;
  final Plugins plugins;
  final ClassLoader loader;

  TaskSetup(JsonNode launch) {
    this.launch = launch;
    this.worker = strings(launch.path("worker"));
    this.connector = strings(launch.path("connector_config"));
    this.taskConfig = strings(launch.path("task_config"));
    this.connectorName = launch.path("connector").asText();
    this.id = new ConnectorTaskId(connectorName, launch.path("task").asInt());
    this.taskId = id.toString();
    String className = connector.get("connector.class");
    String version = connector.get("connector.plugin.version");
    // ServiceLoader discovery first: the same loaders, without reading every class of the classpath
    // (a reflective scan takes tens of seconds on a busy executor); the worker's own
    // plugin.discovery when that misses the connector or a transformation, predicate or converter it names.
    Map<String, String> scan = new HashMap<>();
    scan.put("plugin.path", worker.getOrDefault("plugin.path", ""));
    scan.put("plugin.discovery", "service_load");
    Plugins found = PluginScans.of(scan);
    PluginDesc<?> chosen = chosen(found, className, version);
    if (chosen == null || !findsEveryStage(found)) {
      scan.remove("plugin.discovery");
      if (worker.containsKey("plugin.discovery")) {
        scan.put("plugin.discovery", worker.get("plugin.discovery"));
      }
      found = PluginScans.of(scan);
      chosen = chosen(found, className, version);
    }
    if (chosen == null) {
      throw new IllegalStateException("No Java connector " + className + " on plugin.path in this JVM");
    }
    this.plugins = found;
    this.loader = chosen.loader();
  }

  /** Whether {@code plugins} load every transformation, predicate and converter the connector config names. */
  private boolean findsEveryStage(Plugins plugins) {
    for (Map.Entry<String, String> entry : connector.entrySet()) {
      String key = entry.getKey();
      boolean stage = (key.startsWith("transforms.") || key.startsWith("predicates.")) && key.endsWith(".type")
          || CONVERTERS.contains(key);
      if (stage && entry.getValue() != null) {
        try {
          plugins.pluginClass(entry.getValue().trim()); // a class name or one of Kafka's aliases
        } catch (ClassNotFoundException missing) {
          return false;
        }
      }
    }
    return true;
  }

  /** The newest {@code className} in the {@code connector.plugin.version} range (KIP-891), as Kafka's worker picks. */
  private static PluginDesc<?> chosen(Plugins plugins, String className, String version) {
    VersionRange range;
    try {
      range = version == null || version.isBlank() ? null : PluginUtils.connectorVersionRequirement(version);
    } catch (InvalidVersionSpecificationException invalid) {
      throw new IllegalArgumentException("connector.plugin.version " + version + ": " + invalid.getMessage());
    }
    PluginDesc<?> chosen = null;
    for (PluginDesc<?> desc : plugins.connectors()) {
      boolean named = desc.className().equals(className) && !desc.location().equals("classpath");
      boolean wanted = range == null || range.containsVersion(desc.encodedVersion());
      if (named && wanted && (chosen == null || desc.compareTo(chosen) > 0)) {
        chosen = desc;
      }
    }
    return chosen;
  }

  /** A new instance of {@code className} from the connector's class loader. */
  <T> T instance(String className, Class<T> type) throws Exception {
    return type.cast(Class.forName(className, true, loader).getDeclaredConstructor().newInstance());
  }

  /** The source task's producer: Kafka's worker defaults, then producer.*, then producer.override.*. */
  Map<String, Object> producerConfig() {
    return producerConfig("connector-producer-" + taskId);
  }

  /** A producer as Kafka's worker configures its tasks' (the dead letter queue's too), named {@code clientId}. */
  Map<String, Object> producerConfig(String clientId) {
    Map<String, Object> config = new HashMap<>();
    config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, worker.getOrDefault("bootstrap.servers", "localhost:9092"));
    config.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    config.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    config.put(ProducerConfig.ACKS_CONFIG, "all");
    config.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "1");
    config.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, Integer.toString(Integer.MAX_VALUE));
    config.put(ProducerConfig.CLIENT_ID_CONFIG, clientId);
    config.putAll(prefixed("producer.", worker));
    config.putAll(prefixed("producer.override.", connector));
    return config;
  }

  /** The sink task's consumer: group {@code connect-<connector>}, offsets committed by the loop. */
  Map<String, Object> consumerConfig() {
    Map<String, Object> config = new HashMap<>();
    config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, worker.getOrDefault("bootstrap.servers", "localhost:9092"));
    config.put(ConsumerConfig.GROUP_ID_CONFIG, "connect-" + connectorName);
    config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    config.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    config.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    config.put(ConsumerConfig.CLIENT_ID_CONFIG, "connector-consumer-" + taskId);
    config.putAll(prefixed("consumer.", worker));
    config.putAll(prefixed("consumer.override.", connector));
    return config;
  }

  /** The dead letter queue's admin client (it creates the topic). */
  Map<String, Object> dlqAdminConfig() {
    return adminConfig("connector-dlq-adminclient-");
  }

  /** An admin client as Kafka's worker configures a task's, named {@code clientId}: admin.*, then admin.override.*. */
  Map<String, Object> adminConfig(String clientId) {
    Map<String, Object> config = new HashMap<>();
    config.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, worker.getOrDefault("bootstrap.servers", "localhost:9092"));
    config.put(AdminClientConfig.CLIENT_ID_CONFIG, clientId);
    config.putAll(prefixed("admin.", worker));
    config.putAll(prefixed("admin.override.", connector));
    return config;
  }

  /** {@code offset.flush.interval.ms} of the worker (Kafka's default: 60 s). */
  long flushIntervalMs() {
    return Long.parseLong(worker.getOrDefault("offset.flush.interval.ms", "60000").trim());
  }

  static Map<String, String> prefixed(String prefix, Map<String, String> props) {
    Map<String, String> found = new HashMap<>();
    props.forEach((k, v) -> {
      if (k.startsWith(prefix) && k.length() > prefix.length()) {
        found.put(k.substring(prefix.length()), v);
      }
    });
    return found;
  }

  static Map<String, String> strings(JsonNode node) {
    Map<String, String> map = new HashMap<>();
    node.fields().forEachRemaining(e -> map.put(e.getKey(), e.getValue().isNull() ? null : e.getValue().asText()));
    return map;
  }

  /**
   * A JSON offset or partition as Kafka's offset store gives it back (schemaless JsonConverter):
   * integers as Long, decimals as Double, objects as maps, arrays as lists.
   */
  static Object plain(JsonNode node) {
    if (node == null || node.isNull() || node.isMissingNode()) {
      return null;
    }
    if (node.isIntegralNumber()) {
      return node.asLong();
    }
    if (node.isNumber()) {
      return node.asDouble();
    }
    if (node.isBoolean()) {
      return node.asBoolean();
    }
    if (node.isTextual()) {
      return node.asText();
    }
    if (node.isArray()) {
      List<Object> list = new ArrayList<>();
      node.forEach(item -> list.add(plain(item)));
      return list;
    }
    Map<String, Object> map = new LinkedHashMap<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> entry = it.next();
      map.put(entry.getKey(), plain(entry.getValue()));
    }
    return map;
  }
}
