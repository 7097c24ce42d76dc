package kconnect.test;

import java.util.Map;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.connect.components.Versioned;
import org.apache.kafka.connect.connector.ConnectRecord;
import org.apache.kafka.connect.transforms.Transformation;

/** A transformation that passes records through, versioned like the test sink beside it. */
public class NoopTransformation<R extends ConnectRecord<R>> implements Transformation<R>, Versioned {
  @Override
  public String version() {
    return VersionedSinkConnector.VERSION;
  }

  @Override
  public R apply(R record) {
    return record;
  }

  @Override
  public ConfigDef config() {
    return new ConfigDef().define("noop.level", ConfigDef.Type.INT, 1, ConfigDef.Importance.LOW, "Ignored.");
  }

  @Override
  public void configure(Map<String, ?> configs) {}

  @Override
  public void close() {}
}
