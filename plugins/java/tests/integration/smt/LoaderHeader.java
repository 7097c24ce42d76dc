package kconnect.test.smt;

import java.util.Map;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.connect.connector.ConnectRecord;
import org.apache.kafka.connect.transforms.Transformation;

/**
 * A transformation from {@code plugin.path} (no ServiceLoader manifest) that adds a header {@code
 * loader}: the class loader it was loaded by, so a test sees Kafka's isolation gave it its own.
 */
public class LoaderHeader<R extends ConnectRecord<R>> implements Transformation<R> {
  @Override
  public R apply(R record) {
    record.headers().addString("loader", String.valueOf(getClass().getClassLoader()));
    return record;
  }

  @Override
  public ConfigDef config() {
    return new ConfigDef();
  }

  @Override
  public void configure(Map<String, ?> configs) {}

  @Override
  public void close() {}
}
