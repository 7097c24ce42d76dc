package dev.kconnect.java.task;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.connect.json.JsonConverter;
import org.apache.kafka.connect.json.JsonConverterConfig;
import org.apache.kafka.connect.runtime.WorkerTransactionContext;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.source.SourceTask;
import org.apache.kafka.connect.storage.ConverterType;
import org.apache.kafka.connect.storage.OffsetUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Java source task's transactions under exactly-once support (KIP-618), as kconnect's Python
 * source loop runs them ({@code kconnect.runtime.exactly_once}) and Kafka's
 * ExactlyOnceWorkerSourceTask does. What the worker decided is in the launch's {@code exactly_once}
 * ({@code ExactlyOnceSource.for_task}): the producer's {@code transactional.id}, the offsets topic,
 * the worker's topic when the connector has its own, the boundary and its interval.
 *
 * <p>The producer's {@link KafkaProducer#initTransactions()} runs before the task starts (it fences
 * every earlier producer of the id and aborts what a zombie left open). A transaction begins before
 * its first record is handed to the producer; each record polled (sent or dropped) adds its source
 * offset; at a boundary the offsets are written by the same producer, as Kafka's
 * OffsetStorageWriter writes them (its internal JsonConverter, schemas off: key {@code
 * ["<connector>",{partition}]}, value {@code {offset}}), to the offsets topic (and to the worker's,
 * when they differ), and the transaction is committed; then the task hears {@code commitRecord} for
 * the records of it and {@code commit()}. A connector-requested abort drops the transaction's
 * records and keeps their offsets for the next one. A failed send or commit aborts what can be
 * aborted and fails the task.
 */
final class SourceTransactions {
  private static final Logger LOG = LoggerFactory.getLogger(SourceTransactions.class);

  /** Where a task's transactions end (connector key {@code transaction.boundary}). */
  enum Boundary {
    POLL,
    INTERVAL,
    CONNECTOR
  }

  private final KafkaProducer<byte[], byte[]> producer;
  private final SourceTask task;
  private final String connector;
  private final String transactionalId;
  private final List<String> offsetTopics = new ArrayList<>();
  private final Boundary boundary;
  private final long intervalMs;
  private final JsonConverter keyConverter = internalConverter(ConverterType.KEY);
  private final JsonConverter valueConverter = internalConverter(ConverterType.VALUE);
  private final Map<Map<String, ?>, Map<String, ?>> offsets = new LinkedHashMap<>();
  /** The records of the open transactions, with their metadata (null: dropped), told to the task after the commit. */
  private final Map<SourceRecord, RecordMetadata> committable = new LinkedHashMap<>();
  /** The task's transaction context, with connector-defined boundaries only. */
  final WorkerTransactionContext context;
  private boolean open;
  private long lastCommit = System.currentTimeMillis();

  private SourceTransactions(
      KafkaProducer<byte[], byte[]> producer, SourceTask task, String connector, JsonNode settings) {
    this.producer = producer;
    this.task = task;
    this.connector = connector;
    this.transactionalId = settings.path("transactional_id").asText();
    offsetTopics.add(settings.path("offsets_topic").asText());
    if (settings.hasNonNull("worker_offsets_topic")) {
      offsetTopics.add(settings.path("worker_offsets_topic").asText());
    }
    this.boundary = Boundary.valueOf(settings.path("boundary").asText("poll").toUpperCase(java.util.Locale.ROOT));
    this.intervalMs = Math.round(settings.path("interval_s").asDouble(60) * 1000);
    this.context = boundary == Boundary.CONNECTOR ? new WorkerTransactionContext() : null;
  }

  /** The launch's exactly-once settings, or null when the task delivers at least once. */
  static JsonNode settings(TaskSetup setup) {
    JsonNode settings = setup.launch.path("exactly_once");
    return settings.isObject() ? settings : null;
  }

  /**
   * The transactional producer's config, as Kafka's Worker.exactlyOnceSourceTaskProducerConfigs:
   * the task's producer config, idempotent, with the task's {@code transactional.id} (which wins
   * over any configured one).
   */
  static Map<String, Object> producerConfig(TaskSetup setup, JsonNode settings) {
    Map<String, Object> config = setup.producerConfig();
    config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
    config.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, settings.path("transactional_id").asText());
    return config;
  }

  /** Initializes the producer's transactions (fencing the id's zombies) before the task starts. */
  static SourceTransactions start(
      KafkaProducer<byte[], byte[]> producer, SourceTask task, String connector, JsonNode settings) {
    producer.initTransactions();
    return new SourceTransactions(producer, task, connector, settings);
  }

  private static JsonConverter internalConverter(ConverterType type) {
    JsonConverter converter = new JsonConverter();
    converter.configure(Map.of(
        JsonConverterConfig.SCHEMAS_ENABLE_CONFIG, "false",
        JsonConverterConfig.TYPE_CONFIG, type.getName()));
    return converter;
  }

  /** Opens a transaction, if none is open, before a record is handed to the producer. */
  void beforeSend() {
    if (!open) {
      producer.beginTransaction();
      open = true;
    }
  }

  /** A polled record was sent (its metadata once acknowledged) or dropped (null): its offset joins the transaction. */
  synchronized void dispatched(SourceRecord polled) {
    if (polled.sourcePartition() != null && polled.sourceOffset() != null) {
      offsets.remove(polled.sourcePartition());
      offsets.put(polled.sourcePartition(), polled.sourceOffset());
    }
  }

  /** The producer acknowledged {@code polled} (or it was dropped: null): told to the task after the commit. */
  synchronized void acknowledged(SourceRecord polled, RecordMetadata metadata) {
    committable.put(polled, metadata);
  }

  /** After each record handed over: ends the transaction there if the task asked (connector boundary). */
  boolean afterRecord(SourceRecord polled) {
    if (context == null) {
      return false;
    }
    boolean abort = context.shouldAbortOn(polled);
    boolean commit = context.shouldCommitOn(polled);
    return end(abort, commit, "record");
  }

  /** After a poll's records were handed over ({@code polled}: the poll returned some): ends the transaction where the boundary says. */
  boolean afterBatch(boolean polled) {
    if (context != null) {
      return end(context.shouldAbortBatch(), context.shouldCommitBatch(), "batch");
    }
    boolean due = boundary == Boundary.POLL ? polled : System.currentTimeMillis() - lastCommit >= intervalMs;
    return due && commit();
  }

  private boolean end(boolean abort, boolean commit, String what) {
    if (abort && commit) {
      // Kafka's WorkerTransactionContext refuses the same contradiction.
      throw new IllegalStateException(
          "The task requested both a commit and an abort of the transaction for the same " + what);
    }
    if (abort) {
      abortRequested();
    }
    return (abort || commit) && commit();
  }

  /**
   * Writes the transaction's offsets with its producer and commits it, then tells the task ({@code
   * commitRecord} for each of its records, {@code commit()}). False when there was nothing to
   * commit. Throws, after aborting, when the offsets or the commit could not be written.
   */
  boolean commit() {
    lastCommit = System.currentTimeMillis();
    Map<Map<String, ?>, Map<String, ?>> written;
    synchronized (this) {
      if (!open && offsets.isEmpty()) {
        return false;
      }
      written = new LinkedHashMap<>(offsets);
    }
    try {
      beforeSend();
      written.forEach((partition, offset) -> {
        OffsetUtils.validateFormat(partition);
        OffsetUtils.validateFormat(offset);
        byte[] key = keyConverter.fromConnectData(connector, null, Arrays.asList(connector, partition));
        byte[] value = valueConverter.fromConnectData(connector, null, offset);
        for (String topic : offsetTopics) {
          producer.send(new ProducerRecord<>(topic, key, value));
        }
      });
      producer.commitTransaction();
    } catch (RuntimeException error) {
      abort();
      throw new org.apache.kafka.connect.errors.ConnectException(
          "failed to commit its producer transaction (transactional.id " + transactionalId + ")", error);
    }
    open = false;
    Map<SourceRecord, RecordMetadata> done;
    synchronized (this) {
      written.keySet().forEach(offsets::remove);
      done = new LinkedHashMap<>(committable);
      committable.clear();
    }
    done.forEach((record, metadata) -> {
      try {
        task.commitRecord(record, metadata);
      } catch (Exception ignored) {
        // Kafka's worker logs and ignores a commitRecord that throws
      }
    });
    return true;
  }

  /** The task asked to abort: the transaction's records are dropped, their offsets kept for the next. */
  private void abortRequested() {
    if (!open) {
      LOG.warn("{}: ignoring the task's request to abort: the transaction is empty", transactionalId);
      return;
    }
    LOG.info("{}: aborting the transaction as the task requested", transactionalId);
    producer.abortTransaction();
    open = false;
  }

  /** After a failure: aborts the open transaction if the producer still can (best effort). */
  void abort() {
    synchronized (this) {
      offsets.clear();
      committable.clear();
    }
    if (!open) {
      return;
    }
    open = false;
    try {
      producer.abortTransaction();
    } catch (RuntimeException fenced) {
      // A fenced or failed producer cannot abort; the broker aborts the transaction when the next
      // producer of this id starts, or when it times out.
      LOG.warn("{} could not abort its transaction", transactionalId, fenced);
    }
  }
}
