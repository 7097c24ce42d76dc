package kconnect.test;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.connect.components.Versioned;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.storage.Converter;
import org.apache.kafka.connect.storage.HeaderConverter;

/**
 * A converter and header converter whose version comes from its build (the tests build it as 1.0
 * and 2.0): it writes a value as the UTF-8 text {@code <version>|<tag>|<value>}, {@code tag} from
 * its config, and reads bytes back as that text with the bytes as value, so the bytes show which
 * version ran with which config.
 */
public class TaggingConverter implements Converter, HeaderConverter, Versioned {
  static final String VERSION = "@VERSION@";
  private String tag = "";

  @Override
  public String version() {
    return VERSION;
  }

  @Override
  public void configure(Map<String, ?> configs, boolean isKey) {
    configure(configs);
  }

  @Override
  public void configure(Map<String, ?> configs) {
    Object configured = configs.get("tag");
    tag = configured == null ? "" : configured.toString();
  }

  @Override
  public ConfigDef config() {
    return new ConfigDef().define("tag", ConfigDef.Type.STRING, "", ConfigDef.Importance.LOW, "Written before each value.");
  }

  @Override
  public byte[] fromConnectData(String topic, Schema schema, Object value) {
    return value == null ? null : tagged(value.toString()).getBytes(StandardCharsets.UTF_8);
  }

  @Override
  public SchemaAndValue toConnectData(String topic, byte[] value) {
    String text = value == null ? null : tagged(new String(value, StandardCharsets.UTF_8));
    return new SchemaAndValue(Schema.OPTIONAL_STRING_SCHEMA, text);
  }

  @Override
  public byte[] fromConnectHeader(String topic, String headerKey, Schema schema, Object value) {
    return fromConnectData(topic, schema, value);
  }

  @Override
  public SchemaAndValue toConnectHeader(String topic, String headerKey, byte[] value) {
    return toConnectData(topic, value);
  }

  @Override
  public void close() {}

  private String tagged(String value) {
    return VERSION + "|" + tag + "|" + value;
  }
}
