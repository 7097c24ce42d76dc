package dev.kconnect.java;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigValue;
import org.apache.kafka.connect.components.Versioned;
import org.apache.kafka.connect.connector.Connector;
import org.apache.kafka.connect.runtime.AbstractHerder;
import org.apache.kafka.connect.runtime.WorkerConfig;
import org.apache.kafka.connect.runtime.isolation.LoaderSwap;
import org.apache.kafka.connect.runtime.isolation.PluginDesc;
import org.apache.kafka.connect.runtime.isolation.Plugins;
import org.apache.kafka.connect.runtime.rest.entities.ConfigKeyInfo;
import org.apache.kafka.connect.storage.Converter;
import org.apache.kafka.connect.storage.HeaderConverter;
import org.apache.kafka.connect.transforms.Transformation;
import org.apache.kafka.connect.transforms.predicates.Predicate;

/**
 * The one entry point kconnect's Python side calls through py4j: a JSON request in, a JSON answer out.
 *
 * <p>Plugin scanning and isolation are Kafka's own ({@link Plugins}: {@code plugin.path}, {@code
 * plugin.discovery}, one {@code PluginClassLoader} per plugin, KIP-891 versions); this class only
 * turns their answers into JSON. Requests: {@code {"op": "scan", "plugin.path": "...",
 * "plugin.discovery": "..."}} answers {@code {"plugins": [...]}}, each plugin found on the plugin
 * path with Kafka's {@code class}, {@code type}, {@code version}, {@code location} and its config
 * keys as Kafka's REST API renders them. {@code {"op": "validate", "class": "...", "version": "...",
 * "config": {...}}} runs that connector's own {@code validate(config)} (the version found by the
 * scan; the newest when none is given) and answers {@code {"values": [...]}}: each {@code
 * ConfigValue} with its value and recommended values as Kafka's REST API writes them. {@code
 * {"op": "stage_classes", "names": [...]}} answers which of the names Kafka's isolation loads (a class
 * name or Kafka's alias; Kafka's own SMTs included) as {@code {"transformation": [...], "predicate":
 * [...]}}: what a Java connector's tasks can run. {@code source_support} asks a source connector the
 * exactly-once questions of validate ({@link SourceSupport}). {@code connector_*} requests drive running connector
 * instances ({@link ConnectorInstances}) and ask a STOPPED connector about new offsets ({@link
 * OffsetAlterations}). A failure answers {@code {"error": "...", "trace":
 * "..."}}, never an exception across py4j.
 */
public final class PluginFacade implements Function<String, String> {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final ConnectorInstances connectors = new ConnectorInstances();
  private volatile Plugins plugins;

  /** Creates a facade with no plugins scanned yet; Python creates one per JVM. */
  public PluginFacade() {}

  /** Answers one JSON request with a JSON answer (see the class comment). */
  @Override
  public String apply(String request) {
    try {
      JsonNode body = JSON.readTree(request);
      String op = body.path("op").asText();
      if (op.equals("scan")) {
        return JSON.writeValueAsString(scan(body));
      }
      if (op.equals("validate")) {
        return JSON.writeValueAsString(validate(body));
      }
      if (op.equals("source_support")) {
        return JSON.writeValueAsString(SourceSupport.ask(plugins(), chosenConnector(body), body, JSON));
      }
      if (op.equals("stage_classes")) {
        return JSON.writeValueAsString(stageClasses(body));
      }
      if (op.equals("connector_create")) {
        return JSON.writeValueAsString(connectors.create(plugins(), chosenConnector(body), body));
      }
      if (op.equals("connector_start")) {
        return JSON.writeValueAsString(connectors.start(plugins(), body));
      }
      if (op.equals("connector_offsets_answer")) {
        return JSON.writeValueAsString(connectors.offsetsAnswer(body));
      }
      if (op.equals("connector_alter_offsets")) {
        return JSON.writeValueAsString(OffsetAlterations.alter(plugins(), chosenConnector(body), body));
      }
      if (op.equals("connector_task_configs")) {
        return JSON.writeValueAsString(connectors.taskConfigs(plugins(), body));
      }
      if (op.equals("connector_stop")) {
        return JSON.writeValueAsString(connectors.stop(plugins(), body));
      }
      if (op.equals("connector_events")) {
        return JSON.writeValueAsString(connectors.events(body));
      }
      throw new IllegalArgumentException("Unknown operation " + op);
    } catch (Throwable error) {
      ObjectNode answer = JSON.createObjectNode();
      answer.put("error", String.valueOf(error));
      StringWriter trace = new StringWriter();
      error.printStackTrace(new PrintWriter(trace));
      answer.put("trace", trace.toString());
      try {
        return JSON.writeValueAsString(answer);
      } catch (Exception unwritable) {
        return "{\"error\": \"unwritable answer\"}";
      }
    }
  }

  private ObjectNode scan(JsonNode body) throws Exception {
    Map<String, String> props = new HashMap<>();
    props.put(WorkerConfig.PLUGIN_PATH_CONFIG, body.path(WorkerConfig.PLUGIN_PATH_CONFIG).asText(""));
    String discovery = body.path(WorkerConfig.PLUGIN_DISCOVERY_CONFIG).asText("");
    if (!discovery.isEmpty()) {
      props.put(WorkerConfig.PLUGIN_DISCOVERY_CONFIG, discovery);
    }
    plugins = new Plugins(props);
    ArrayNode found = JSON.createArrayNode();
    List<PluginDesc<?>> all = new ArrayList<>();
    all.addAll(plugins.sinkConnectors());
    all.addAll(plugins.sourceConnectors());
    all.addAll(plugins.converters());
    all.addAll(plugins.headerConverters());
    all.addAll(plugins.transformations());
    all.addAll(plugins.predicates());
    for (PluginDesc<?> desc : all) {
      if (desc.location().equals("classpath")) {
        continue; // kconnect's own plugins stand in for Kafka's built-in classes
      }
      ObjectNode entry = found.addObject();
      entry.put("class", desc.className());
      entry.put("type", desc.typeName());
      entry.put("version", desc.version());
      entry.put("location", desc.location());
      ArrayNode keys = entry.putArray("config");
      for (ConfigKeyInfo key : configKeys(desc)) {
        keys.add(JSON.valueToTree(key));
      }
    }
    ObjectNode answer = JSON.createObjectNode();
    answer.set("plugins", found);
    return answer;
  }

  private Plugins plugins() {
    if (plugins == null) {
      throw new IllegalStateException("a connector call before the scan");
    }
    return plugins;
  }

  /** The connector {@code class} in {@code version} (the newest when none is given) found by the scan. */
  private PluginDesc<?> chosenConnector(JsonNode body) {
    String className = body.path("class").asText();
    String version = body.path("version").asText("");
    PluginDesc<?> chosen = null;
    for (PluginDesc<?> desc : plugins().connectors()) {
      boolean named = desc.className().equals(className) && !desc.location().equals("classpath");
      boolean wanted = version.isEmpty() || desc.version().equals(version);
      if (named && wanted && (chosen == null || desc.compareTo(chosen) > 0)) {
        chosen = desc;
      }
    }
    if (chosen == null) {
      throw new IllegalArgumentException("No connector " + className + " version " + version);
    }
    return chosen;
  }

  private ObjectNode validate(JsonNode body) throws Exception {
    PluginDesc<?> chosen = chosenConnector(body);
    Map<String, String> config = new HashMap<>();
    body.path("config").fields().forEachRemaining(e -> config.put(e.getKey(), e.getValue().asText()));
    ArrayNode values = JSON.createArrayNode();
    try (LoaderSwap swap = plugins.withClassLoader(chosen.loader())) {
      Connector connector = (Connector) chosen.pluginClass().getDeclaredConstructor().newInstance();
      ConfigDef def = connector.config();
      Map<String, ConfigDef.ConfigKey> keys = def == null ? Map.of() : def.configKeys();
      for (ConfigValue value : connector.validate(config).configValues()) {
        ConfigDef.ConfigKey key = keys.get(value.name());
        ObjectNode entry = values.addObject();
        entry.put("name", value.name());
        entry.put("value", asString(value.value(), key));
        ArrayNode recommended = entry.putArray("recommended_values");
        for (Object item : value.recommendedValues()) {
          recommended.add(asItemString(item, key));
        }
        ArrayNode errors = entry.putArray("errors");
        value.errorMessages().forEach(errors::add);
        entry.put("visible", value.visible());
      }
    }
    ObjectNode answer = JSON.createObjectNode();
    answer.set("values", values);
    return answer;
  }

  private ObjectNode stageClasses(JsonNode body) {
    ObjectNode answer = JSON.createObjectNode();
    ArrayNode transformations = answer.putArray("transformation");
    ArrayNode predicates = answer.putArray("predicate");
    for (JsonNode name : body.path("names")) {
      Class<?> loaded;
      try {
        loaded = plugins().pluginClass(name.asText());
      } catch (ClassNotFoundException | LinkageError missing) {
        continue;
      }
      if (Transformation.class.isAssignableFrom(loaded)) {
        transformations.add(name.asText());
      }
      if (Predicate.class.isAssignableFrom(loaded)) {
        predicates.add(name.asText());
      }
    }
    return answer;
  }

  /** A value as Kafka's REST API writes it: ConfigDef.convertToString with the key's type. */
  private static String asString(Object value, ConfigDef.ConfigKey key) {
    if (value == null) {
      return null;
    }
    return key == null ? String.valueOf(value) : ConfigDef.convertToString(value, key.type);
  }

  /** A recommended value as Kafka's REST API writes it: a LIST key's items as STRING. */
  private static String asItemString(Object item, ConfigDef.ConfigKey key) {
    if (item == null || key == null || key.type != ConfigDef.Type.LIST) {
      return asString(item, key);
    }
    return ConfigDef.convertToString(item, ConfigDef.Type.STRING);
  }

  /** The plugin's own config keys as Kafka's REST API renders them (AbstractHerder.convertConfigKey). */
  private List<ConfigKeyInfo> configKeys(PluginDesc<?> desc) throws Exception {
    List<ConfigKeyInfo> keys = new ArrayList<>();
    try (LoaderSwap swap = plugins.withClassLoader(desc.loader())) {
      Object plugin = desc.pluginClass().getDeclaredConstructor().newInstance();
      ConfigDef def = configDef(plugin);
      Collection<ConfigDef.ConfigKey> defined = def == null ? List.of() : def.configKeys().values();
      for (ConfigDef.ConfigKey key : defined) {
        keys.add(AbstractHerder.convertConfigKey(key));
      }
    }
    return keys;
  }

  private static ConfigDef configDef(Object plugin) {
    if (plugin instanceof Connector connector) {
      return connector.config();
    }
    if (plugin instanceof Converter converter) {
      return converter.config();
    }
    if (plugin instanceof HeaderConverter converter) {
      return converter.config();
    }
    if (plugin instanceof Transformation<?> transformation) {
      return transformation.config();
    }
    if (plugin instanceof Predicate<?> predicate) {
      return predicate.config();
    }
    return plugin instanceof Versioned ? new ConfigDef() : null;
  }
}
