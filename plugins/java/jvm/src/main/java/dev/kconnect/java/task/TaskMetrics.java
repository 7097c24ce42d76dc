package dev.kconnect.java.task;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntSupplier;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.KafkaMetric;
import org.apache.kafka.connect.runtime.ConnectMetrics.MetricGroup;
import org.apache.kafka.connect.runtime.errors.ErrorHandlingMetrics;

/**
 * A Java task loop's metrics, the totals a Python loop reports (kconnect.runtime.task_metrics) with
 * Kafka's groups and names: {@code connector-task-metrics}, {@code source-task-metrics} or {@code
 * sink-task-metrics}, and {@code task-error-metrics} read from Kafka's own {@link
 * ErrorHandlingMetrics}, which the task's {@code RetryWithToleranceOperator} and reporters count. The
 * loop counts on its own thread (a source's acknowledgements on the producer's) and calls {@link
 * #maybeReport} each turn; {@link #close} reports a last time however the task ends, so the loop
 * declares it as a resource after its {@link RecordStages}, which close after it with Kafka's error
 * metrics. The worker keeps the last snapshot.
 */
final class TaskMetrics implements AutoCloseable {
  /** How often a running loop sends its metrics (kconnect.runtime.task_metrics.REPORT_INTERVAL_S). */
  static final long REPORT_INTERVAL_MS = 1000;

  private final boolean source;
  private final ControlChannel control;
  private final ErrorHandlingMetrics errors;
  private final IntSupplier partitions;
  private final Timing batches = new Timing();
  private final Timing commits = new Timing();
  /** Records the task returned from poll (source) or the loop read from Kafka (sink). */
  private long recordsIn;
  /** Records Kafka acknowledged (source) or put accepted (sink). */
  private final AtomicLong recordsOut = new AtomicLong();
  /** Records that will never be written or put: filtered, dropped by errors.tolerance=all. */
  private final AtomicLong recordsDropped = new AtomicLong();
  private long batchSizeMax;
  private long batchSizeTotal;
  private long commitFailures;
  private long nextReport;

  private TaskMetrics(boolean source, ControlChannel control, ErrorHandlingMetrics errors, IntSupplier partitions) {
    this.source = source;
    this.control = control;
    this.errors = errors;
    this.partitions = partitions;
  }

  /** A source task's metrics, reported over {@code control}. */
  static TaskMetrics source(ControlChannel control, ErrorHandlingMetrics errors) {
    return new TaskMetrics(true, control, errors, () -> 0);
  }

  /** A sink task's metrics, reported over {@code control}; {@code partitions} counts its partitions now. */
  static TaskMetrics sink(ControlChannel control, ErrorHandlingMetrics errors, IntSupplier partitions) {
    return new TaskMetrics(false, control, errors, partitions);
  }

  /** {@code count} records polled from the task (source) or read from Kafka (sink). */
  void recordsIn(int count) {
    recordsIn += count;
  }

  /** {@code count} records acknowledged by Kafka (source) or accepted by put (sink). */
  void recordsOut(int count) {
    recordsOut.addAndGet(count);
  }

  /** One record that will not be written or put (its offset still moves on). */
  void recordDropped() {
    recordsDropped.incrementAndGet();
  }

  /** A poll (source) or a put (sink) of {@code size} records that began at {@code startedNs} returned. */
  void batch(long startedNs, int size) {
    batches.add(startedNs);
    batchSizeTotal += size;
    batchSizeMax = Math.max(batchSizeMax, size);
  }

  /** An offset commit that began at {@code startedNs} ended; {@code ok} unless it failed. */
  void commit(long startedNs, boolean ok) {
    commits.add(startedNs);
    if (!ok) {
      commitFailures++;
    }
  }

  /** Sends a snapshot when {@link #REPORT_INTERVAL_MS} has passed since the last one. */
  void maybeReport() throws java.io.IOException {
    long now = System.currentTimeMillis();
    if (now >= nextReport) {
      nextReport = now + REPORT_INTERVAL_MS;
      control.send(message());
    }
  }

  /** Sends the last figures; a worker that cannot be told any more is no reason to fail. */
  @Override
  public void close() {
    try {
      control.send(message());
    } catch (java.io.IOException ignored) {
      // the channel is gone when the task ends because the worker went away
    }
  }

  /** The control message: {@code {"type": "metrics", "metrics": {group: {name: value}}}}. */
  ObjectNode message() {
    ObjectNode message = ControlChannel.JSON.createObjectNode().put("type", "metrics");
    ObjectNode groups = message.putObject("metrics");
    long commitCount = commits.count;
    long succeeded = commitCount - commitFailures;
    long batchCount = batches.count;
    groups.putObject("connector-task-metrics")
        .put("batch-size-max", batchSizeMax)
        .put("batch-size-avg", batchCount == 0 ? 0.0 : (double) batchSizeTotal / batchCount)
        .put("offset-commit-avg-time-ms", commits.avgMs())
        .put("offset-commit-max-time-ms", commits.maxMs)
        .put("offset-commit-success-percentage", commitCount == 0 ? 0.0 : 100.0 * succeeded / commitCount)
        .put("offset-commit-failure-percentage", commitCount == 0 ? 0.0 : 100.0 * commitFailures / commitCount);
    ObjectNode errorGroup = groups.putObject("task-error-metrics");
    kafkaValues(errors.metricGroup()).forEach(errorGroup::put);
    long out = recordsOut.get();
    long active = Math.max(0, recordsIn - out - recordsDropped.get());
    if (source) {
      groups.putObject("source-task-metrics")
          .put("source-record-poll-total", recordsIn)
          .put("source-record-write-total", out)
          .put("source-record-active-count", active)
          .put("poll-batch-avg-time-ms", batches.avgMs())
          .put("poll-batch-max-time-ms", batches.maxMs);
    } else {
      groups.putObject("sink-task-metrics")
          .put("sink-record-read-total", recordsIn)
          .put("sink-record-send-total", out)
          .put("sink-record-active-count", active)
          .put("partition-count", partitions.getAsInt())
          .put("offset-commit-completion-total", succeeded)
          .put("offset-commit-seq-no", commitCount)
          .put("put-batch-avg-time-ms", batches.avgMs())
          .put("put-batch-max-time-ms", batches.maxMs);
    }
    return message;
  }

  /** The current value of each of Kafka's metrics in {@code group}, by name. */
  private static Map<String, Double> kafkaValues(MetricGroup group) {
    Map<String, Double> values = new java.util.TreeMap<>();
    for (Map.Entry<MetricName, KafkaMetric> metric : group.metrics().metrics().entrySet()) {
      if (group.groupId().includes(metric.getKey()) && metric.getValue().metricValue() instanceof Number number) {
        values.put(metric.getKey().name(), number.doubleValue());
      }
    }
    return values;
  }

  /** Durations of one repeated operation, in ms: count, sum and maximum. */
  private static final class Timing {
    long count;
    double totalMs;
    double maxMs;

    void add(long startedNs) {
      double elapsedMs = (System.nanoTime() - startedNs) / 1e6;
      count++;
      totalMs += elapsedMs;
      maxMs = Math.max(maxMs, elapsedMs);
    }

    double avgMs() {
      return count == 0 ? 0.0 : totalMs / count;
    }
  }
}
