package dev.kconnect.java.task;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.metrics.PluginMetrics;
import org.apache.kafka.common.metrics.internals.PluginMetricsImpl;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.header.ConnectHeaders;
import org.apache.kafka.connect.runtime.InternalSinkRecord;
import org.apache.kafka.connect.runtime.SinkConnectorConfig;
import org.apache.kafka.connect.runtime.errors.ProcessingContext;
import org.apache.kafka.connect.runtime.errors.Stage;
import org.apache.kafka.connect.runtime.errors.WorkerErrantRecordReporter;
import org.apache.kafka.connect.sink.ErrantRecordReporter;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.sink.SinkTask;
import org.apache.kafka.connect.sink.SinkTaskContext;
import org.apache.kafka.connect.storage.Converter;
import org.apache.kafka.connect.storage.HeaderConverter;
import org.apache.kafka.connect.util.ConnectUtils;

/**
 * A Java sink task's loop, as Kafka's WorkerSinkTask runs one: consume the connector's topics in
 * group {@code connect-<connector>}, convert with the Java converters, transform (the config's
 * transformations and predicates), {@code put}, and commit what {@code preCommit} allows to the
 * consumer group every {@code offset.flush.interval.ms}, on pause and on stop. Partitions are opened
 * and closed on the task as the group assigns them. Converters and transformations run under {@code
 * errors.*} ({@link RecordStages}): a record they fail on is skipped (and sent to the dead letter
 * queue when one is named) with {@code errors.tolerance=all}, fails the task with {@code none}; the
 * task's {@code errantRecordReporter()} reports to the same places, as Kafka's does.
 */
final class SinkLoop {
  private final TaskSetup setup;
  private final ControlChannel control;
  private final Map<TopicPartition, OffsetAndMetadata> consumed = new HashMap<>();
  private final Set<String> topics = new HashSet<>();
  /** The partitions assigned to the task, as its listener saw them (the consumer may be closed). */
  private final Set<TopicPartition> assigned = new HashSet<>();
  private KafkaConsumer<byte[], byte[]> consumer;
  private SinkTask task;
  private WorkerErrantRecordReporter errantRecords;
  private TaskMetrics taskMetrics;

  SinkLoop(TaskSetup setup, ControlChannel control) {
    this.setup = setup;
    this.control = control;
  }

  /** Runs the task until the target is STOPPED; offsets committed before it returns. */
  void run() throws Exception {
    task = setup.instance(setup.taskConfig.get("task.class"), SinkTask.class);
    try (Metrics metrics = new Metrics();
        RecordStages<ConsumerRecord<byte[], byte[]>, SinkRecord> stages = RecordStages.sink(setup);
        // Closed (its last report) before the stages close Kafka's error metrics it reads.
        TaskMetrics reporting = taskMetrics = TaskMetrics.sink(control, stages.errorMetrics, assigned::size)) {
      Converter keys = stages.keyConverter;
      Converter values = stages.valueConverter;
      HeaderConverter headers = stages.headerConverter;
      if (((SinkConnectorConfig) stages.config).enableErrantRecordReporter()) {
        errantRecords = new WorkerErrantRecordReporter(stages.operator, keys, values, headers);
      }
      consumer = new KafkaConsumer<>(setup.consumerConfig());
      PluginMetrics pluginMetrics = new PluginMetricsImpl(metrics, Map.of("connector", setup.connectorName));
      task.initialize(new Context(pluginMetrics));
      task.start(setup.taskConfig);
      subscribe();
      control.send(report("running"));
      long nextCommit = System.currentTimeMillis() + setup.flushIntervalMs();
      try {
        String target;
        while (!(target = control.target()).equals("STOPPED")) {
          if (target.equals("PAUSED")) {
            commit();
            consumer.pause(consumer.assignment());
            control.send(report("paused"));
            while (control.target().equals("PAUSED")) {
              consumer.poll(Duration.ofMillis(500)); // keeps the group membership; returns nothing
            }
            consumer.resume(consumer.paused());
            if (control.target().equals("STARTED")) {
              control.send(report("running"));
            }
            continue;
          }
          List<SinkRecord> batch = new ArrayList<>();
          ConsumerRecords<byte[], byte[]> read = consumer.poll(Duration.ofMillis(500));
          taskMetrics.recordsIn(read.count());
          for (ConsumerRecord<byte[], byte[]> record : read) {
            SinkRecord converted = convert(stages, record, keys, values, headers);
            if (converted != null) {
              batch.add(converted);
            } else {
              taskMetrics.recordDropped();
            }
            consumed.put(
                new TopicPartition(record.topic(), record.partition()),
                new OffsetAndMetadata(record.offset() + 1));
          }
          long putStarted = System.nanoTime();
          task.put(batch);
          if (!read.isEmpty()) {
            taskMetrics.recordsOut(batch.size());
            taskMetrics.batch(putStarted, batch.size());
          }
          if (System.currentTimeMillis() >= nextCommit) {
            commit();
            nextCommit = System.currentTimeMillis() + setup.flushIntervalMs();
          }
          taskMetrics.maybeReport();
        }
        if (!control.lost()) {
          commit();
        }
        task.close(new ArrayList<>(consumer.assignment()));
      } finally {
        task.stop();
        consumer.close();
      }
    }
  }

  private void subscribe() {
    Listener listener = new Listener();
    String regex = setup.connector.get("topics.regex");
    if (regex != null && !regex.isBlank()) {
      consumer.subscribe(Pattern.compile(regex.trim()), listener);
      return;
    }
    List<String> names = new ArrayList<>();
    for (String name : setup.connector.getOrDefault("topics", "").split(",")) {
      if (!name.isBlank()) {
        names.add(name.trim());
      }
    }
    consumer.subscribe(names, listener);
  }

  /**
   * The record as the task receives it (Kafka's WorkerSinkTask.convertAndTransformRecord): null when a
   * transformation filters it out, or a converter or transformation failed and errors.tolerance=all
   * skips it.
   */
  private SinkRecord convert(
      RecordStages<ConsumerRecord<byte[], byte[]>, SinkRecord> stages,
      ConsumerRecord<byte[], byte[]> record,
      Converter keys,
      Converter values,
      HeaderConverter headerConverter)
      throws Exception {
    ProcessingContext<ConsumerRecord<byte[], byte[]>> context = new ProcessingContext<>(record);
    String topic = record.topic();
    SchemaAndValue key = stages.operator.execute(
        context, () -> keys.toConnectData(topic, record.headers(), record.key()), Stage.KEY_CONVERTER, keys.getClass());
    SchemaAndValue value = stages.operator.execute(
        context, () -> values.toConnectData(topic, record.headers(), record.value()), Stage.VALUE_CONVERTER,
        values.getClass());
    ConnectHeaders headers = stages.operator.execute(context, () -> {
      ConnectHeaders converted = new ConnectHeaders();
      for (org.apache.kafka.common.header.Header header : record.headers()) {
        converted.add(header.key(), headerConverter.toConnectHeader(topic, header.key(), header.value()));
      }
      return converted;
    }, Stage.HEADER_CONVERTER, headerConverter.getClass());
    if (context.failed()) {
      return null;
    }
    if (topics.add(topic)) {
      control.send(report("topic").put("topic", topic));
    }
    SinkRecord converted = new SinkRecord(
        topic, record.partition(), key.schema(), key.value(), value.schema(), value.value(),
        record.offset(), ConnectUtils.checkAndConvertTimestamp(record.timestamp()), record.timestampType(), headers);
    SinkRecord transformed = stages.chain.apply(context, converted);
    // The original consumed record stays with it, for the errant record reporter.
    return transformed == null ? null : new InternalSinkRecord(context, transformed);
  }

  /** Flushes the task (preCommit) and commits what it allows to the consumer group. */
  private void commit() {
    if (consumed.isEmpty()) {
      return;
    }
    if (errantRecords != null) {
      errantRecords.awaitFutures(consumed.keySet());
    }
    Map<TopicPartition, OffsetAndMetadata> allowed = task.preCommit(new HashMap<>(consumed));
    if (allowed != null && !allowed.isEmpty()) {
      long started = System.nanoTime();
      try {
        consumer.commitSync(allowed);
      } catch (RuntimeException error) {
        taskMetrics.commit(started, false);
        throw error;
      }
      taskMetrics.commit(started, true);
    }
  }

  private static ObjectNode report(String type) {
    return ControlChannel.JSON.createObjectNode().put("type", type);
  }

  /** Opens and closes partitions on the task as the group assigns them (Kafka's order). */
  private final class Listener implements ConsumerRebalanceListener {
    @Override
    public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
      assigned.addAll(partitions);
      task.open(partitions);
    }

    @Override
    public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
      commit();
      task.close(partitions);
      partitions.forEach(consumed::remove);
      assigned.removeAll(partitions);
    }
  }

  /** The task's context: its configs, its assignment, pause and resume of partitions. */
  private final class Context implements SinkTaskContext {
    private final PluginMetrics metrics;

    Context(PluginMetrics metrics) {
      this.metrics = metrics;
    }

    @Override
    public Map<String, String> configs() {
      return setup.taskConfig;
    }

    @Override
    public void offset(Map<TopicPartition, Long> offsets) {
      offsets.forEach(consumer::seek);
    }

    @Override
    public void offset(TopicPartition partition, long offset) {
      consumer.seek(partition, offset);
    }

    @Override
    public void timeout(long timeoutMs) {
      // kconnect's Java sink loop polls every 500 ms; a retry timeout is not kept yet
    }

    @Override
    public Set<TopicPartition> assignment() {
      return consumer.assignment();
    }

    @Override
    public void pause(TopicPartition... partitions) {
      consumer.pause(Arrays.asList(partitions));
    }

    @Override
    public void resume(TopicPartition... partitions) {
      consumer.resume(Arrays.asList(partitions));
    }

    @Override
    public void requestCommit() {
      // commits follow offset.flush.interval.ms
    }

    @Override
    public ErrantRecordReporter errantRecordReporter() {
      return errantRecords;
    }

    @Override
    public PluginMetrics pluginMetrics() {
      return metrics;
    }
  }
}
