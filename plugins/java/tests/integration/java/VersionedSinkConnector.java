package kconnect.test;

import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.Config;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigValue;
import org.apache.kafka.connect.connector.Task;
import org.apache.kafka.connect.sink.SinkConnector;

/** A sink whose version and keys come from its build: the tests compile it twice, as 1.0 and 2.0. */
public class VersionedSinkConnector extends SinkConnector {
  static final String VERSION = "@VERSION@";

  @Override
  public String version() {
    return VERSION;
  }

  @Override
  public void start(Map<String, String> props) {}

  @Override
  public Class<? extends Task> taskClass() {
    return null;
  }

  @Override
  public List<Map<String, String>> taskConfigs(int maxTasks) {
    return List.of();
  }

  @Override
  public void stop() {}

  /** Its ConfigDef's checks, then one of its own: shared.key must not be "bad". */
  @Override
  public Config validate(Map<String, String> props) {
    Config config = super.validate(props);
    for (ConfigValue value : config.configValues()) {
      if (value.name().equals("shared.key") && "bad".equals(props.get("shared.key"))) {
        value.addErrorMessage("shared.key is bad in version " + VERSION);
      }
    }
    return config;
  }

  @Override
  public ConfigDef config() {
    ConfigDef def = new ConfigDef()
        .define("shared.key", ConfigDef.Type.STRING, "one", ConfigDef.Importance.HIGH, "In every version.");
    if (!VERSION.startsWith("1.")) {
      def.define("since.two", ConfigDef.Type.INT, 2, ConfigDef.Importance.LOW, "Added in 2.0.");
    }
    return def;
  }
}
