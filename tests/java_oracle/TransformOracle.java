// Applies Apache Kafka's own transformations and predicates to the records in cases.json and
// prints what they return, as JSON, for kconnect's unit tests to compare against.
//
// Records cross the boundary as JsonConverter envelopes ({"schema": ..., "payload": ...}), read and
// written by Kafka's JsonConverter, so both sides describe schemas and values the same way.
// Run by generate.sh, never by the tests themselves.

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigValue;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.connect.connector.ConnectRecord;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.header.ConnectHeaders;
import org.apache.kafka.connect.header.Header;
import org.apache.kafka.connect.json.JsonConverter;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.transforms.Transformation;
import org.apache.kafka.connect.transforms.predicates.Predicate;

public class TransformOracle {
    static final ObjectMapper MAPPER = new ObjectMapper();
    static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    static final JsonConverter CONVERTER = new JsonConverter();

    public static void main(String[] args) throws Exception {
        Map<String, Object> converterConfig = new HashMap<>();
        converterConfig.put("schemas.enable", "true");
        converterConfig.put("converter.type", "value");
        CONVERTER.configure(converterConfig);

        JsonNode input = MAPPER.readTree(new File(args[0]));
        JsonNode records = input.get("records");
        ObjectNode out = NODES.objectNode();

        ObjectNode transforms = out.putObject("transforms");
        for (JsonNode c : input.get("transforms")) {
            transforms.set(c.get("id").asText(), runTransform(c, records));
        }
        ObjectNode predicates = out.putObject("predicates");
        for (JsonNode c : input.get("predicates")) {
            predicates.set(c.get("id").asText(), runPredicate(c, records));
        }
        ObjectNode validations = out.putObject("validations");
        for (JsonNode c : input.get("validations")) {
            validations.set(c.get("id").asText(), runValidation(c));
        }
        ObjectNode configDefs = out.putObject("config_defs");
        for (JsonNode name : input.get("config_defs")) {
            configDefs.set(name.asText(), describe(name.asText()));
        }
        System.out.println(MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(out));
    }

    static Object instantiate(String className) throws Exception {
        return Class.forName(className).getDeclaredConstructor().newInstance();
    }

    static Map<String, Object> props(JsonNode config) {
        Map<String, Object> result = new LinkedHashMap<>();
        Iterator<Map.Entry<String, JsonNode>> fields = config.fields();
        while (fields.hasNext()) {
            Map.Entry<String, JsonNode> e = fields.next();
            result.put(e.getKey(), e.getValue().isNull() ? null : e.getValue().asText());
        }
        return result;
    }

    static ObjectNode error(Throwable t) {
        ObjectNode node = NODES.objectNode();
        node.put("error", t.getClass().getSimpleName());
        node.put("message", t.getMessage());
        return node;
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    static JsonNode runTransform(JsonNode c, JsonNode records) {
        ObjectNode result = NODES.objectNode();
        Transformation transformation;
        try {
            transformation = (Transformation) instantiate(c.get("type").asText());
            transformation.configure(props(c.get("config")));
        } catch (Throwable t) {
            result.set("configure_error", error(t));
            return result;
        }
        ArrayNode outputs = result.putArray("outputs");
        for (JsonNode name : c.get("records")) {
            try {
                ConnectRecord record = toRecord(records.get(name.asText()));
                ConnectRecord transformed = transformation.apply(record);
                outputs.add(transformed == null ? NODES.nullNode() : fromRecord(transformed));
            } catch (Throwable t) {
                outputs.add(error(t));
            }
        }
        transformation.close();
        return result;
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    static JsonNode runPredicate(JsonNode c, JsonNode records) {
        ObjectNode result = NODES.objectNode();
        Predicate predicate;
        try {
            predicate = (Predicate) instantiate(c.get("type").asText());
            predicate.configure(props(c.get("config")));
        } catch (Throwable t) {
            result.set("configure_error", error(t));
            return result;
        }
        ArrayNode outputs = result.putArray("outputs");
        for (JsonNode name : c.get("records")) {
            try {
                outputs.add(predicate.test(toRecord(records.get(name.asText()))));
            } catch (Throwable t) {
                outputs.add(error(t));
            }
        }
        predicate.close();
        return result;
    }

    static ConfigDef configDef(Object plugin) {
        if (plugin instanceof Transformation<?> t) {
            return t.config();
        }
        return ((Predicate<?>) plugin).config();
    }

    static JsonNode runValidation(JsonNode c) {
        ObjectNode result = NODES.objectNode();
        try {
            Object plugin = instantiate(c.get("type").asText());
            Map<String, Object> config = props(c.get("config"));
            Map<String, String> strings = new LinkedHashMap<>();
            for (Map.Entry<String, Object> e : config.entrySet()) {
                strings.put(e.getKey(), (String) e.getValue());
            }
            ObjectNode errors = result.putObject("validate");
            for (ConfigValue value : configDef(plugin).validate(strings)) {
                if (!value.errorMessages().isEmpty()) {
                    ArrayNode list = errors.putArray(value.name());
                    value.errorMessages().forEach(list::add);
                }
            }
            try {
                if (plugin instanceof Transformation<?> t) {
                    t.configure(config);
                } else {
                    ((Predicate<?>) plugin).configure(config);
                }
                result.putNull("configure_error");
            } catch (Throwable t) {
                result.set("configure_error", error(t));
            }
        } catch (Throwable t) {
            result.set("error", error(t));
        }
        return result;
    }

    static JsonNode describe(String className) throws Exception {
        ArrayNode keys = NODES.arrayNode();
        for (ConfigDef.ConfigKey key : configDef(instantiate(className)).configKeys().values()) {
            ObjectNode k = keys.addObject();
            k.put("name", key.name);
            k.put("type", key.type.name());
            if (key.hasDefault()) {
                k.put("default", ConfigDef.convertToString(key.defaultValue, key.type));
            } else {
                k.put("required", true);
            }
            k.put("importance", key.importance.name());
            k.put("validator", key.validator == null ? null : key.validator.toString());
        }
        return keys;
    }

    // --- records <-> JSON ------------------------------------------------------------------------

    static SchemaAndValue read(String topic, JsonNode envelope) throws Exception {
        if (envelope == null || envelope.isNull()) {
            return SchemaAndValue.NULL;
        }
        return CONVERTER.toConnectData(topic, MAPPER.writeValueAsBytes(envelope));
    }

    static JsonNode write(String topic, org.apache.kafka.connect.data.Schema schema, Object value)
            throws Exception {
        byte[] bytes = CONVERTER.fromConnectData(topic, schema, value);
        return bytes == null ? NODES.nullNode() : MAPPER.readTree(new String(bytes, StandardCharsets.UTF_8));
    }

    static ConnectRecord<?> toRecord(JsonNode spec) throws Exception {
        String topic = spec.get("topic").asText();
        Integer partition = spec.hasNonNull("partition") ? spec.get("partition").asInt() : null;
        Long timestamp = spec.hasNonNull("timestamp") ? spec.get("timestamp").asLong() : null;
        SchemaAndValue key = read(topic, spec.get("key"));
        SchemaAndValue value = read(topic, spec.get("value"));
        ConnectHeaders headers = new ConnectHeaders();
        if (spec.has("headers")) {
            for (JsonNode header : spec.get("headers")) {
                SchemaAndValue h = read(topic, header.get(1));
                headers.add(header.get(0).asText(), h.value(), h.schema());
            }
        }
        if ("source".equals(spec.path("kind").asText("sink"))) {
            return new SourceRecord(
                    Map.of("p", 1), Map.of("o", 1), topic, partition,
                    key.schema(), key.value(), value.schema(), value.value(), timestamp, headers);
        }
        long offset = spec.path("offset").asLong(0);
        return new SinkRecord(
                topic, partition == null ? 0 : partition,
                key.schema(), key.value(), value.schema(), value.value(), offset, timestamp,
                timestamp == null ? TimestampType.NO_TIMESTAMP_TYPE : TimestampType.CREATE_TIME,
                headers);
    }

    static JsonNode fromRecord(ConnectRecord<?> record) throws Exception {
        ObjectNode node = NODES.objectNode();
        node.put("topic", record.topic());
        if (record.kafkaPartition() == null) {
            node.putNull("partition");
        } else {
            node.put("partition", record.kafkaPartition());
        }
        if (record.timestamp() == null) {
            node.putNull("timestamp");
        } else {
            node.put("timestamp", record.timestamp());
        }
        node.set("key", write(record.topic(), record.keySchema(), record.key()));
        node.set("value", write(record.topic(), record.valueSchema(), record.value()));
        ArrayNode headers = node.putArray("headers");
        for (Header header : record.headers()) {
            ArrayNode pair = headers.addArray();
            pair.add(header.key());
            pair.add(write(record.topic(), header.schema(), header.value()));
        }
        return node;
    }
}
