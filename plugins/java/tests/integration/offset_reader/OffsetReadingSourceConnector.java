package kconnect.test;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.connect.connector.Task;
import org.apache.kafka.connect.source.SourceConnector;

/**
 * A source connector that reads its own offsets through its context's offsetStorageReader(), in
 * start() and in taskConfigs(), and puts what it read in its task config, so a test can read it.
 */
public class OffsetReadingSourceConnector extends SourceConnector {
  static final Map<String, Object> PARTITION = Map.of("source", "offset-reading");

  private Map<String, String> props;
  private String readInStart;

  @Override
  public String version() {
    return "1.0";
  }

  @Override
  public void start(Map<String, String> props) {
    this.props = props;
    readInStart = describe(context().offsetStorageReader().offset(PARTITION));
  }

  @Override
  public Class<? extends Task> taskClass() {
    return IdleSourceTask.class;
  }

  @Override
  public List<Map<String, String>> taskConfigs(int maxTasks) {
    Map<String, String> config = new HashMap<>(props);
    config.put("read.in.start", readInStart);
    Map<String, Object> read = context().offsetStorageReader().offsets(List.of(PARTITION)).get(PARTITION);
    config.put("read.in.task.configs", describe(read));
    return List.of(config);
  }

  @Override
  public void stop() {}

  @Override
  public ConfigDef config() {
    return new ConfigDef();
  }

  /** The offset's fields in key order with their Java types: {@code n=42 (Long), ...}, or "null". */
  private static String describe(Map<String, Object> offset) {
    if (offset == null) {
      return "null";
    }
    StringBuilder text = new StringBuilder();
    for (Map.Entry<String, Object> field : new TreeMap<>(offset).entrySet()) {
      Object value = field.getValue();
      String type = value == null ? "null" : value.getClass().getSimpleName();
      text.append(text.length() == 0 ? "" : ", ").append(field.getKey()).append('=').append(value)
          .append(" (").append(type).append(')');
    }
    return text.toString();
  }
}
