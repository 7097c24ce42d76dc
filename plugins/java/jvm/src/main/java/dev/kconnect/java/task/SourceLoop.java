package dev.kconnect.java.task;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.metrics.PluginMetrics;
import org.apache.kafka.common.metrics.internals.PluginMetricsImpl;
import org.apache.kafka.connect.errors.RetriableException;
import org.apache.kafka.connect.header.Header;
import org.apache.kafka.connect.runtime.errors.ProcessingContext;
import org.apache.kafka.connect.runtime.errors.Stage;
import org.apache.kafka.connect.runtime.errors.ToleranceType;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.source.SourceTask;
import org.apache.kafka.connect.source.SourceTaskContext;
import org.apache.kafka.connect.source.TransactionContext;
import org.apache.kafka.connect.storage.Converter;
import org.apache.kafka.connect.storage.HeaderConverter;
import org.apache.kafka.connect.storage.OffsetStorageReader;
import org.apache.kafka.connect.util.ConnectUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Java source task's loop, as kconnect's Python source loop runs one: poll, transform (the
 * config's transformations and predicates), convert with the Java converters, produce, and commit the
 * acknowledged records' offsets through the worker's offset store (over the control channel, in
 * Kafka's format) every {@code offset.flush.interval.ms}, on pause and on stop. Transformations and
 * converters run under {@code errors.*} as in Kafka's AbstractWorkerSourceTask ({@link RecordStages}):
 * a record they fail on is dropped with {@code errors.tolerance=all}, fails the task with {@code
 * none}. Follows the worker's target state; a poll that throws fails the task. Under exactly-once
 * support (the launch's {@code exactly_once}) the producer is transactional and {@link
 * SourceTransactions} writes each transaction's records and offsets instead of the worker's store.
 */
final class SourceLoop {
  /** How long a source task waits before trying again what the broker did not answer in time (Kafka's). */
  private static final long SEND_FAILED_BACKOFF_MS = 100;
  private static final Logger LOG = LoggerFactory.getLogger(SourceLoop.class);
  private final TaskSetup setup;
  private final ControlChannel control;
  private final Map<Map<String, ?>, Map<String, ?>> acked = new LinkedHashMap<>();
  private final Set<String> topics = new HashSet<>();
  private final AtomicReference<Exception> sendError = new AtomicReference<>();
  private TaskMetrics taskMetrics;
  /** The task's transactions under exactly-once support; null: at-least-once. */
  private SourceTransactions transactions;

  SourceLoop(TaskSetup setup, ControlChannel control) {
    this.setup = setup;
    this.control = control;
  }

  /** Runs the task until the target is STOPPED; offsets committed before it returns. */
  void run() throws Exception {
    SourceTask task = setup.instance(setup.taskConfig.get("task.class"), SourceTask.class);
    JsonNode exactlyOnce = SourceTransactions.settings(setup);
    Map<String, Object> producerConfig =
        exactlyOnce == null ? setup.producerConfig() : SourceTransactions.producerConfig(setup, exactlyOnce);
    try (Metrics metrics = new Metrics();
        RecordStages<SourceRecord, SourceRecord> stages = RecordStages.source(setup);
        // Closed (its last report) before the stages close Kafka's error metrics it reads.
        TaskMetrics reporting = taskMetrics = TaskMetrics.source(control, stages.errorMetrics);
        KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(producerConfig)) {
      Converter keys = stages.keyConverter;
      Converter values = stages.valueConverter;
      HeaderConverter headers = stages.headerConverter;
      PluginMetrics pluginMetrics = new PluginMetricsImpl(metrics, Map.of("connector", setup.connectorName));
      if (exactlyOnce != null) {
        // As Kafka's exactly-once task: fence the id's zombies before the task starts.
        transactions = SourceTransactions.start(producer, task, setup.connectorName, exactlyOnce);
      }
      task.initialize(new Context(pluginMetrics));
      task.start(setup.taskConfig);
      control.send(report("running"));
      long nextFlush = System.currentTimeMillis() + setup.flushIntervalMs();
      try {
        String target;
        while (!(target = control.target()).equals("STOPPED")) {
          if (target.equals("PAUSED")) {
            commit(producer, task);
            control.send(report("paused"));
            while (control.awaitChange("PAUSED", 1000).equals("PAUSED")) {
              // paused: the task is not polled
            }
            if (control.target().equals("STARTED")) {
              control.send(report("running"));
            }
            continue;
          }
          long polled = System.nanoTime();
          List<SourceRecord> records = task.poll();
          if (records != null && !records.isEmpty()) {
            // Kafka's WorkerSourceTask counts a poll that returned records (recordPollReturned).
            taskMetrics.recordsIn(records.size());
            taskMetrics.batch(polled, records.size());
          }
          if (records != null) {
            for (SourceRecord record : records) {
              if (!send(producer, task, stages, record, keys, values, headers)) {
                break; // stopped while its topic could not be checked: the rest is not sent either
              }
              if (transactions != null) {
                endTransaction(task, () -> transactions.afterRecord(record));
              }
            }
          }
          if (sendError.get() != null) {
            throw sendError.get();
          }
          if (transactions != null) {
            boolean polledSome = records != null && !records.isEmpty();
            endTransaction(task, () -> transactions.afterBatch(polledSome));
          } else if (System.currentTimeMillis() >= nextFlush) {
            commit(producer, task);
            nextFlush = System.currentTimeMillis() + setup.flushIntervalMs();
          }
          taskMetrics.maybeReport();
        }
      } catch (Exception failure) {
        if (transactions != null) {
          transactions.abort();
        }
        throw failure;
      } finally {
        task.stop();
      }
      if (!control.lost()) {
        commit(producer, task);
      } else if (transactions != null) {
        transactions.abort();
      }
    }
  }

  /**
   * Transforms, converts and sends one polled record (Kafka's AbstractWorkerSourceTask.sendRecords),
   * its topic created first when the connector's topic creation groups say so; a record a
   * transformation filters out, or errors.tolerance=all drops, is only {@code commitRecord}ed.
   * False when the task was stopped while the broker could not tell whether its topic exists.
   */
  private boolean send(
      KafkaProducer<byte[], byte[]> producer,
      SourceTask task,
      RecordStages<SourceRecord, SourceRecord> stages,
      SourceRecord polled,
      Converter keys,
      Converter values,
      HeaderConverter headerConverter)
      throws Exception {
    ProcessingContext<SourceRecord> context = new ProcessingContext<>(polled);
    SourceRecord record = stages.chain.apply(context, polled);
    ProducerRecord<byte[], byte[]> produced =
        record == null ? null : convert(stages, context, record, keys, values, headerConverter);
    if (produced == null || context.failed()) {
      taskMetrics.recordDropped();
      if (transactions != null) {
        transactions.dispatched(polled);
        transactions.acknowledged(polled, null);
      } else {
        task.commitRecord(polled, null);
      }
      return true;
    }
    String topic = produced.topic();
    if (!createTopic(stages.topicCreator, topic)) {
      return false;
    }
    if (topics.add(topic)) {
      control.send(report("topic").put("topic", topic));
    }
    if (transactions != null) {
      transactions.beforeSend();
      transactions.dispatched(polled);
    }
    producer.send(produced, (metadata, error) -> {
      if (error != null && transactions != null) {
        // As Kafka's exactly-once task: a failed send dooms its transaction, whose commit throws it
        // (errors.tolerance cannot skip it); a record of a transaction the task aborted fails here too.
        return;
      }
      if (error != null) {
        if (stages.operator.getErrorToleranceType() != ToleranceType.ALL) {
          sendError.compareAndSet(null, error);
          return;
        }
        stages.operator.executeFailed(context, Stage.KAFKA_PRODUCE, SourceLoop.class, error);
        taskMetrics.recordDropped();
      } else {
        taskMetrics.recordsOut(1);
      }
      if (transactions != null) {
        transactions.acknowledged(polled, metadata);
        return; // the task hears commitRecord once the transaction is committed
      }
      synchronized (acked) {
        if (polled.sourcePartition() != null) {
          acked.remove(polled.sourcePartition());
          acked.put(polled.sourcePartition(), polled.sourceOffset());
        }
      }
      try {
        task.commitRecord(polled, metadata);
      } catch (Exception ignored) {
        // Kafka's worker logs and ignores a commitRecord that throws
      }
    });
    return true;
  }

  /**
   * {@link TopicCreator#maybeCreate}, tried again every {@value #SEND_FAILED_BACKOFF_MS} ms while the
   * broker does not answer in time (as Kafka's source task backs off and sends again); false when the
   * target becomes STOPPED meanwhile.
   */
  private boolean createTopic(TopicCreator creator, String topic) throws InterruptedException {
    while (true) {
      try {
        creator.maybeCreate(topic);
        return true;
      } catch (RetriableException | org.apache.kafka.common.errors.RetriableException retriable) {
        LOG.warn("{} cannot check or create topic '{}' yet; trying again", setup.taskId, topic, retriable);
        if (control.awaitChange(control.target(), SEND_FAILED_BACKOFF_MS).equals("STOPPED")) {
          return false;
        }
      }
    }
  }

  /** The record as Kafka receives it; null when a converter failed and errors.tolerance=all drops it. */
  private static ProducerRecord<byte[], byte[]> convert(
      RecordStages<SourceRecord, SourceRecord> stages,
      ProcessingContext<SourceRecord> context,
      SourceRecord record,
      Converter keys,
      Converter values,
      HeaderConverter headerConverter) {
    String topic = record.topic();
    RecordHeaders headers = stages.operator.execute(context, () -> {
      RecordHeaders converted = new RecordHeaders();
      for (Header header : record.headers()) {
        converted.add(header.key(), headerConverter.fromConnectHeader(topic, header.key(), header.schema(), header.value()));
      }
      return converted;
    }, Stage.HEADER_CONVERTER, headerConverter.getClass());
    byte[] key = stages.operator.execute(
        context, () -> keys.fromConnectData(topic, headers, record.keySchema(), record.key()),
        Stage.KEY_CONVERTER, keys.getClass());
    byte[] value = stages.operator.execute(
        context, () -> values.fromConnectData(topic, headers, record.valueSchema(), record.value()),
        Stage.VALUE_CONVERTER, values.getClass());
    if (context.failed()) {
      return null;
    }
    Long timestamp = ConnectUtils.checkAndConvertTimestamp(record.timestamp());
    return new ProducerRecord<>(topic, record.kafkaPartition(), timestamp, key, value, headers);
  }

  /**
   * Flushes the producer, stores the acknowledged offsets through the worker, then task.commit();
   * under exactly-once support commits the open transaction with its offsets instead.
   */
  private void commit(KafkaProducer<byte[], byte[]> producer, SourceTask task) throws Exception {
    long started = System.nanoTime();
    try {
      if (transactions == null) {
        flushAndCommit(producer, task);
      } else if (transactions.commit()) {
        task.commit();
      }
    } catch (Exception error) {
      taskMetrics.commit(started, false);
      throw error;
    }
    taskMetrics.commit(started, true);
  }

  /**
   * Ends the open transaction if its boundary says so: a commit is timed as Kafka's exactly-once
   * task times it (the offset-commit metrics), then the task hears {@code commit()}.
   */
  private void endTransaction(SourceTask task, BooleanSupplier boundary) throws InterruptedException {
    long started = System.nanoTime();
    boolean committed;
    try {
      committed = boundary.getAsBoolean();
    } catch (RuntimeException failed) {
      taskMetrics.commit(started, false);
      throw failed;
    }
    if (committed) {
      taskMetrics.commit(started, true);
      task.commit();
    }
  }

  private void flushAndCommit(KafkaProducer<byte[], byte[]> producer, SourceTask task) throws Exception {
    producer.flush();
    if (sendError.get() != null) {
      throw sendError.get();
    }
    Map<Map<String, ?>, Map<String, ?>> offsets;
    synchronized (acked) {
      offsets = new LinkedHashMap<>(acked);
      acked.clear();
    }
    if (!offsets.isEmpty()) {
      ObjectNode request = report("commit");
      ArrayNode list = request.putArray("offsets");
      offsets.forEach((partition, offset) -> {
        ArrayNode pair = list.addArray();
        pair.add(ControlChannel.JSON.valueToTree(partition));
        pair.add(ControlChannel.JSON.valueToTree(offset));
      });
      control.request(request);
    }
    task.commit();
  }

  private static ObjectNode report(String type) {
    return ControlChannel.JSON.createObjectNode().put("type", type);
  }

  /** The task's context: its configs and the worker's offsets, read over the control channel. */
  private final class Context implements SourceTaskContext, OffsetStorageReader {
    private final PluginMetrics metrics;

    Context(PluginMetrics metrics) {
      this.metrics = metrics;
    }

    @Override
    public Map<String, String> configs() {
      return setup.taskConfig;
    }

    @Override
    public OffsetStorageReader offsetStorageReader() {
      return this;
    }

    @Override
    public TransactionContext transactionContext() {
      return transactions == null ? null : transactions.context;
    }

    @Override
    public PluginMetrics pluginMetrics() {
      return metrics;
    }

    @Override
    public <T> Map<String, Object> offset(Map<String, T> partition) {
      return offsets(List.of(partition)).get(partition);
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T> Map<Map<String, T>, Map<String, Object>> offsets(Collection<Map<String, T>> partitions) {
      List<Map<String, T>> asked = new ArrayList<>(partitions);
      ObjectNode request = report("read_offsets");
      ArrayNode list = request.putArray("partitions");
      asked.forEach(p -> list.add(ControlChannel.JSON.valueToTree(p)));
      JsonNode result;
      try {
        result = control.request(request);
      } catch (Exception error) {
        throw new org.apache.kafka.connect.errors.ConnectException("Failed to read source offsets", error);
      }
      Map<Map<String, T>, Map<String, Object>> found = new HashMap<>();
      for (int i = 0; i < asked.size(); i++) {
        found.put(asked.get(i), (Map<String, Object>) TaskSetup.plain(result.get(i)));
      }
      return found;
    }
  }
}
