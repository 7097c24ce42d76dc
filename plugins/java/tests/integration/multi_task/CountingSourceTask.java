package kconnect.test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.source.SourceTask;

/** A task of CountingSourceConnector: its records from its committed offset on, 10 a poll. */
public class CountingSourceTask extends SourceTask {
  private Map<String, String> config;
  private Map<String, Object> partition;
  private int index;
  private long next;
  private long total;

  @Override
  public String version() {
    return "1.0";
  }

  @Override
  public void start(Map<String, String> props) {
    config = props;
    index = Integer.parseInt(props.get("task.index"));
    total = Long.parseLong(props.getOrDefault("records.per.task", "100"));
    partition = Map.of("task", index);
    Map<String, Object> offset = context.offsetStorageReader().offset(partition);
    next = offset == null ? 0 : ((Number) offset.get("next")).longValue();
  }

  @Override
  public List<SourceRecord> poll() throws InterruptedException {
    if (Integer.toString(index).equals(config.get("fail.task"))) {
      throw new ConnectException("task " + index + " fails as its connector's fail.task asks");
    }
    if (next >= total) {
      if (Integer.toString(index).equals(config.get("stuck.task"))) {
        blockUntilInterrupted();
      }
      if (Boolean.parseBoolean(config.get("busy"))) {
        spin(100);
      } else {
        Thread.sleep(100);
      }
      return null;
    }
    List<SourceRecord> records = new ArrayList<>();
    for (int i = 0; i < 10 && next < total; i++, next++) {
      records.add(new SourceRecord(partition, Map.of("next", next + 1), config.get("topic"), null,
          Schema.STRING_SCHEMA, "t" + index + "-" + next));
    }
    Thread.sleep(20);
    return records;
  }

  /** Keeps a core busy for {@code millis}, as a task that computes without pause would. */
  private static void spin(long millis) {
    long until = System.nanoTime() + millis * 1_000_000;
    long sum = 0;
    while (System.nanoTime() < until) {
      sum += System.nanoTime() % 7;
    }
    if (sum == -1) {
      throw new IllegalStateException("unreachable: keeps the loop from being optimised away");
    }
  }

  private void blockUntilInterrupted() throws InterruptedException {
    try {
      Thread.sleep(Long.MAX_VALUE);
    } catch (InterruptedException interrupted) {
      try {
        Files.writeString(Path.of(config.get("marker.dir"), "interrupted-" + index), "interrupted\n");
      } catch (IOException error) {
        throw new ConnectException(error);
      }
      throw interrupted;
    }
  }

  @Override
  public void stop() {}
}
