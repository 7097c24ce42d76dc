package dev.kconnect.java.task;

import static org.apache.kafka.connect.runtime.ConnectorConfig.HEADER_CONVERTER_CLASS_CONFIG;
import static org.apache.kafka.connect.runtime.ConnectorConfig.HEADER_CONVERTER_VERSION_CONFIG;
import static org.apache.kafka.connect.runtime.ConnectorConfig.KEY_CONVERTER_CLASS_CONFIG;
import static org.apache.kafka.connect.runtime.ConnectorConfig.KEY_CONVERTER_VERSION_CONFIG;
import static org.apache.kafka.connect.runtime.ConnectorConfig.VALUE_CONVERTER_CLASS_CONFIG;
import static org.apache.kafka.connect.runtime.ConnectorConfig.VALUE_CONVERTER_VERSION_CONFIG;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.common.utils.Utils;
import org.apache.kafka.connect.connector.ConnectRecord;
import org.apache.kafka.connect.runtime.ConnectMetrics;
import org.apache.kafka.connect.runtime.ConnectorConfig;
import org.apache.kafka.connect.runtime.SinkConnectorConfig;
import org.apache.kafka.connect.runtime.SourceConnectorConfig;
import org.apache.kafka.connect.runtime.TransformationChain;
import org.apache.kafka.connect.runtime.WorkerConfig;
import org.apache.kafka.connect.runtime.errors.DeadLetterQueueReporter;
import org.apache.kafka.connect.runtime.errors.ErrorHandlingMetrics;
import org.apache.kafka.connect.runtime.errors.ErrorReporter;
import org.apache.kafka.connect.runtime.errors.LogReporter;
import org.apache.kafka.connect.runtime.errors.RetryWithToleranceOperator;
import org.apache.kafka.connect.runtime.isolation.LoaderSwap;
import org.apache.kafka.connect.runtime.isolation.Plugins;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.storage.Converter;
import org.apache.kafka.connect.storage.HeaderConverter;

/**
 * What Kafka's worker builds around a task's records (its {@code Worker.buildWorkerTask}), with
 * Kafka's own classes: the connector config ({@code SourceConnectorConfig}, {@code SinkConnectorConfig}),
 * the key, value and header converters (the connector config's, else the worker's, each loaded by
 * Kafka's isolation, from {@code plugin.path} too, its {@code .plugin.version} range honoured),
 * the {@code errors.*} operator ({@code RetryWithToleranceOperator}) with its reporters (a {@code
 * LogReporter}, and for a sink with {@code errors.deadletterqueue.topic.name} a {@code
 * DeadLetterQueueReporter}, which creates the topic) and the {@code TransformationChain} of the
 * config's {@code transforms} and {@code predicates}, each loaded by Kafka's isolation in its own
 * plugin's class loader, and for a source its {@link TopicCreator} (KIP-158). The loops call {@link #operator} around converters and {@link #chain}
 * between poll and convert (source) or convert and put (sink); closed when the task ends.
 *
 * @param <T> the record an error report carries: the source record, or the consumed record
 * @param <R> the records the transformations see
 */
final class RecordStages<T, R extends ConnectRecord<R>> implements AutoCloseable {
  final ConnectorConfig config;
  final RetryWithToleranceOperator<T> operator;
  final TransformationChain<T, R> chain;
  final Converter keyConverter;
  final Converter valueConverter;
  final HeaderConverter headerConverter;
  /** A source task's topic creation (off for a sink). */
  final TopicCreator topicCreator;
  private final ConnectMetrics metrics;
  /** Kafka's {@code task-error-metrics} of the task, counted by the operator and the reporters. */
  final ErrorHandlingMetrics errorMetrics;

  private RecordStages(TaskSetup setup, WorkerView worker, ConnectorConfig config, TopicCreator topicCreator) {
    this.config = config;
    this.topicCreator = topicCreator;
    this.metrics = new ConnectMetrics(setup.connectorName, worker, Time.SYSTEM, "kconnect");
    this.errorMetrics = new ErrorHandlingMetrics(setup.id, metrics);
    this.operator = new RetryWithToleranceOperator<>(
        config.errorRetryTimeout(), config.errorMaxDelayInMillis(), config.errorToleranceType(), Time.SYSTEM,
        errorMetrics);
    try (LoaderSwap swap = setup.plugins.withClassLoader(setup.loader)) {
      this.chain = new TransformationChain<>(config.<R>transformationStages(setup.plugins, setup.id, metrics), operator);
      // As Kafka's Worker: the connector config's converter, else the worker config's (read only
      // then: the worker's may name a Python converter a connector config replaces).
      Plugins plugins = setup.plugins;
      this.keyConverter = Objects.requireNonNullElseGet(
          plugins.newConverter(config, KEY_CONVERTER_CLASS_CONFIG, KEY_CONVERTER_VERSION_CONFIG),
          () -> plugins.newConverter(
              WorkerView.withConverters(setup.worker), KEY_CONVERTER_CLASS_CONFIG, WorkerConfig.KEY_CONVERTER_VERSION));
      this.valueConverter = Objects.requireNonNullElseGet(
          plugins.newConverter(config, VALUE_CONVERTER_CLASS_CONFIG, VALUE_CONVERTER_VERSION_CONFIG),
          () -> plugins.newConverter(
              WorkerView.withConverters(setup.worker), VALUE_CONVERTER_CLASS_CONFIG, WorkerConfig.VALUE_CONVERTER_VERSION));
      this.headerConverter = Objects.requireNonNullElseGet(
          plugins.newHeaderConverter(config, HEADER_CONVERTER_CLASS_CONFIG, HEADER_CONVERTER_VERSION_CONFIG),
          () -> plugins.newHeaderConverter(
              WorkerView.withConverters(setup.worker), HEADER_CONVERTER_CLASS_CONFIG,
              WorkerConfig.HEADER_CONVERTER_VERSION));
    }
  }

  /**
   * A source task's stages: errors are logged (Kafka's source tasks have no dead letter queue), its
   * topics created as its {@code topic.creation.*} groups say when the worker allows it.
   */
  static RecordStages<SourceRecord, SourceRecord> source(TaskSetup setup) {
    WorkerView worker = new WorkerView(setup.worker);
    SourceConnectorConfig config;
    try (LoaderSwap swap = setup.plugins.withClassLoader(setup.loader)) {
      config = new SourceConnectorConfig(setup.plugins, setup.connector, worker.topicCreationEnable());
    }
    RecordStages<SourceRecord, SourceRecord> stages =
        new RecordStages<>(setup, worker, config, TopicCreator.of(setup, worker, config));
    stages.operator.reporters(List.of(new LogReporter.Source(setup.id, config, stages.errorMetrics)));
    return stages;
  }

  /** A sink task's stages: errors logged, and sent to the dead letter queue when the config names one. */
  static RecordStages<ConsumerRecord<byte[], byte[]>, SinkRecord> sink(TaskSetup setup) {
    SinkConnectorConfig config;
    try (LoaderSwap swap = setup.plugins.withClassLoader(setup.loader)) {
      config = new SinkConnectorConfig(setup.plugins, setup.connector);
    }
    RecordStages<ConsumerRecord<byte[], byte[]>, SinkRecord> stages =
        new RecordStages<>(setup, new WorkerView(setup.worker), config, TopicCreator.none());
    List<ErrorReporter<ConsumerRecord<byte[], byte[]>>> reporters = new ArrayList<>();
    reporters.add(new LogReporter.Sink(setup.id, config, stages.errorMetrics));
    String dlq = config.dlqTopicName();
    if (dlq != null && !dlq.isEmpty()) {
      reporters.add(DeadLetterQueueReporter.createAndSetup(
          setup.dlqAdminConfig(), setup.id, config, setup.producerConfig("connector-dlq-producer-" + setup.taskId),
          stages.errorMetrics));
    }
    stages.operator.reporters(reporters);
    return stages;
  }

  /** Closes the transformations, the converters, the reporters (the dead letter queue's producer), the topic admin and the metrics. */
  @Override
  public void close() {
    chain.close();
    Utils.closeQuietly(keyConverter, "key converter");
    Utils.closeQuietly(valueConverter, "value converter");
    Utils.closeQuietly(headerConverter, "header converter");
    topicCreator.close();
    operator.close();
    errorMetrics.close();
    metrics.stop();
  }

  /**
   * The worker config Kafka's classes read here: the worker's {@code metrics.*} keys ({@code
   * ConnectMetrics}; no metric reporter: a task's metrics stay in its JVM, as its plugin metrics do),
   * {@code topic.creation.enable} ({@code TopicCreation}) and, {@link #withConverters}, the converters'
   * keys (a task's converter when its connector config names none).
   */
  private static final class WorkerView extends WorkerConfig {
    WorkerView(Map<String, String> worker) {
      this(worker, false);
    }

    private WorkerView(Map<String, String> worker, boolean converters) {
      super(baseConfigDef(), props(worker, converters));
    }

    /** The view with the worker's converter keys too (their classes loaded). */
    static WorkerView withConverters(Map<String, String> worker) {
      return new WorkerView(worker, true);
    }

    private static Map<String, String> props(Map<String, String> worker, boolean converters) {
      Map<String, String> props = new HashMap<>();
      worker.forEach((key, value) -> {
        boolean converter = key.startsWith(KEY_CONVERTER_CLASS_CONFIG)
            || key.startsWith(VALUE_CONVERTER_CLASS_CONFIG) || key.startsWith(HEADER_CONVERTER_CLASS_CONFIG);
        boolean read = key.startsWith("metrics.") || key.equals(TOPIC_CREATION_ENABLE_CONFIG)
            || (converters && converter);
        if (read && value != null) {
          props.put(key, value);
        }
      });
      props.put("metric.reporters", "");
      props.put("bootstrap.servers", worker.getOrDefault("bootstrap.servers", "localhost:9092"));
      // Required keys, read by the converter view only (a worker without them fails at start).
      props.putIfAbsent(KEY_CONVERTER_CLASS_CONFIG, "org.apache.kafka.connect.storage.StringConverter");
      props.putIfAbsent(VALUE_CONVERTER_CLASS_CONFIG, "org.apache.kafka.connect.storage.StringConverter");
      return props;
    }
  }
}
