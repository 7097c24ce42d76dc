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
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.metrics.PluginMetrics;
import org.apache.kafka.common.metrics.internals.PluginMetricsImpl;
import org.apache.kafka.connect.header.Header;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.source.SourceTask;
import org.apache.kafka.connect.source.SourceTaskContext;
import org.apache.kafka.connect.storage.Converter;
import org.apache.kafka.connect.storage.HeaderConverter;
import org.apache.kafka.connect.storage.OffsetStorageReader;

/**
 * A Java source task's loop, as kconnect's Python source loop runs one: poll, convert with the
 * Java converters, produce, and commit the acknowledged records' offsets through the worker's offset
 * store (over the control channel, in Kafka's format) every {@code offset.flush.interval.ms}, on
 * pause and on stop. Follows the worker's target state; a poll or send that throws fails the task.
 */
final class SourceLoop {
  private final TaskSetup setup;
  private final ControlChannel control;
  private final Map<Map<String, ?>, Map<String, ?>> acked = new LinkedHashMap<>();
  private final Set<String> topics = new HashSet<>();
  private final AtomicReference<Exception> sendError = new AtomicReference<>();

  SourceLoop(TaskSetup setup, ControlChannel control) {
    this.setup = setup;
    this.control = control;
  }

  /** Runs the task until the target is STOPPED; offsets committed before it returns. */
  void run() throws Exception {
    SourceTask task = setup.instance(setup.taskConfig.get("task.class"), SourceTask.class);
    Converter keys = setup.converter("key.converter", true);
    Converter values = setup.converter("value.converter", false);
    HeaderConverter headers = setup.headerConverter();
    try (Metrics metrics = new Metrics();
        KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(setup.producerConfig())) {
      PluginMetrics pluginMetrics = new PluginMetricsImpl(metrics, Map.of("connector", setup.connectorName));
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
          List<SourceRecord> records = task.poll();
          if (records != null) {
            for (SourceRecord record : records) {
              send(producer, task, record, keys, values, headers);
            }
          }
          if (sendError.get() != null) {
            throw sendError.get();
          }
          if (System.currentTimeMillis() >= nextFlush) {
            commit(producer, task);
            nextFlush = System.currentTimeMillis() + setup.flushIntervalMs();
          }
        }
      } finally {
        task.stop();
      }
      if (!control.lost()) {
        commit(producer, task);
      }
    }
  }

  private void send(
      KafkaProducer<byte[], byte[]> producer,
      SourceTask task,
      SourceRecord record,
      Converter keys,
      Converter values,
      HeaderConverter headerConverter)
      throws Exception {
    String topic = record.topic();
    RecordHeaders headers = new RecordHeaders();
    for (Header header : record.headers()) {
      byte[] bytes = headerConverter.fromConnectHeader(topic, header.key(), header.schema(), header.value());
      headers.add(header.key(), bytes);
    }
    byte[] key = keys.fromConnectData(topic, headers, record.keySchema(), record.key());
    byte[] value = values.fromConnectData(topic, headers, record.valueSchema(), record.value());
    ProducerRecord<byte[], byte[]> produced =
        new ProducerRecord<>(topic, record.kafkaPartition(), record.timestamp(), key, value, headers);
    if (topics.add(topic)) {
      control.send(report("topic").put("topic", topic));
    }
    producer.send(produced, (metadata, error) -> {
      if (error != null) {
        sendError.compareAndSet(null, error);
        return;
      }
      synchronized (acked) {
        if (record.sourcePartition() != null) {
          acked.remove(record.sourcePartition());
          acked.put(record.sourcePartition(), record.sourceOffset());
        }
      }
      try {
        task.commitRecord(record, metadata);
      } catch (Exception ignored) {
        // Kafka's worker logs and ignores a commitRecord that throws
      }
    });
  }

  /** Flushes the producer, stores the acknowledged offsets through the worker, then task.commit(). */
  private void commit(KafkaProducer<byte[], byte[]> producer, SourceTask task) throws Exception {
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
