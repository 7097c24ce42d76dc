package kconnect.test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.connect.connector.Task;
import org.apache.kafka.connect.source.SourceConnector;

/**
 * A source connector of {@code tasks.max} tasks, each writing {@code records.per.task} numbered
 * records ({@code t<task>-<n>}) to {@code topic} and then idling, so a test can count every record
 * once. {@code fail.task} names a task whose poll throws; {@code stuck.task} one whose poll, after
 * its records, blocks until its thread is interrupted (then writes {@code interrupted-<task>} in
 * {@code marker.dir}). With {@code busy=true} each task, after its records, keeps a core busy.
 */
public class CountingSourceConnector extends SourceConnector {
  private Map<String, String> props;

  @Override
  public String version() {
    return "1.0";
  }

  @Override
  public void start(Map<String, String> props) {
    this.props = props;
  }

  @Override
  public Class<? extends Task> taskClass() {
    return CountingSourceTask.class;
  }

  @Override
  public List<Map<String, String>> taskConfigs(int maxTasks) {
    List<Map<String, String>> configs = new ArrayList<>();
    for (int task = 0; task < maxTasks; task++) {
      Map<String, String> config = new HashMap<>(props);
      config.put("task.index", Integer.toString(task));
      configs.add(config);
    }
    return configs;
  }

  @Override
  public void stop() {}

  @Override
  public ConfigDef config() {
    return new ConfigDef()
        .define("topic", ConfigDef.Type.STRING, ConfigDef.Importance.HIGH, "Where the records go.")
        .define("records.per.task", ConfigDef.Type.INT, 100, ConfigDef.Importance.LOW, "Records per task.")
        .define("fail.task", ConfigDef.Type.INT, -1, ConfigDef.Importance.LOW, "The task whose poll throws.")
        .define("stuck.task", ConfigDef.Type.INT, -1, ConfigDef.Importance.LOW, "The task that blocks in poll.")
        .define("marker.dir", ConfigDef.Type.STRING, "", ConfigDef.Importance.LOW, "Where a stuck task says it was interrupted.")
        .define("busy", ConfigDef.Type.BOOLEAN, false, ConfigDef.Importance.LOW, "Whether tasks keep a core busy after their records.");
  }
}
