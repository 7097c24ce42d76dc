package kconnect.test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.source.SourceTask;
import org.apache.kafka.connect.source.TransactionContext;

/** BoundarySourceConnector's task: its records from its committed offset on, its transactions its own. */
public class BoundarySourceTask extends SourceTask {
  private static final Map<String, Object> PARTITION = Map.of("source", "boundaries");
  private String topic;
  private long next;
  private long total;

  @Override
  public String version() {
    return "1.0";
  }

  @Override
  public void start(Map<String, String> props) {
    topic = props.get("topic");
    total = Long.parseLong(props.getOrDefault("records", "200"));
    Map<String, Object> offset = context.offsetStorageReader().offset(PARTITION);
    next = offset == null ? 0 : ((Number) offset.get("next")).longValue();
  }

  @Override
  public List<SourceRecord> poll() throws InterruptedException {
    if (next >= total) {
      Thread.sleep(100);
      return null;
    }
    TransactionContext transactions = context.transactionContext();
    List<SourceRecord> records = new ArrayList<>();
    long poll = next / 10;
    for (int i = 0; i < 10 && next < total; i++, next++) {
      SourceRecord record = new SourceRecord(
          PARTITION, Map.of("next", next + 1), topic, null, Schema.STRING_SCHEMA, "r" + next);
      records.add(record);
      if (i == 4) {
        transactions.commitTransaction(record);
      }
    }
    if (poll % 5 == 2) {
      transactions.abortTransaction();
    } else {
      transactions.commitTransaction();
    }
    Thread.sleep(20);
    return records;
  }

  @Override
  public void stop() {}
}
