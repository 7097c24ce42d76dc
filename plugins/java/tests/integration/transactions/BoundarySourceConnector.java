package kconnect.test;

import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.connect.connector.Task;
import org.apache.kafka.connect.source.ConnectorTransactionBoundaries;
import org.apache.kafka.connect.source.ExactlyOnceSupport;
import org.apache.kafka.connect.source.SourceConnector;

/**
 * A source connector of one task that defines its own transactions (KIP-618): its task writes
 * {@code records} numbered records ({@code r<n>}) to {@code topic}, 10 a poll, and asks through its
 * {@code TransactionContext} for a commit after the fifth record of each poll, then for a commit of
 * the rest of the poll, except every fifth poll from the third on, whose rest it aborts.
 */
public class BoundarySourceConnector extends SourceConnector {
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
    return BoundarySourceTask.class;
  }

  @Override
  public List<Map<String, String>> taskConfigs(int maxTasks) {
    return List.of(props);
  }

  @Override
  public void stop() {}

  @Override
  public ConfigDef config() {
    return new ConfigDef()
        .define("topic", ConfigDef.Type.STRING, ConfigDef.Importance.HIGH, "Where the records go.")
        .define("records", ConfigDef.Type.INT, 200, ConfigDef.Importance.LOW, "How many records.");
  }

  @Override
  public ExactlyOnceSupport exactlyOnceSupport(Map<String, String> config) {
    return ExactlyOnceSupport.SUPPORTED;
  }

  @Override
  public ConnectorTransactionBoundaries canDefineTransactionBoundaries(Map<String, String> config) {
    return ConnectorTransactionBoundaries.SUPPORTED;
  }
}
