package dev.kconnect.java.task;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.connect.connector.ConnectRecord;
import org.apache.kafka.connect.runtime.ConnectMetrics;
import org.apache.kafka.connect.runtime.ConnectorConfig;
import org.apache.kafka.connect.runtime.SinkConnectorConfig;
import org.apache.kafka.connect.runtime.TransformationChain;
import org.apache.kafka.connect.runtime.WorkerConfig;
import org.apache.kafka.connect.runtime.errors.DeadLetterQueueReporter;
import org.apache.kafka.connect.runtime.errors.ErrorHandlingMetrics;
import org.apache.kafka.connect.runtime.errors.ErrorReporter;
import org.apache.kafka.connect.runtime.errors.LogReporter;
import org.apache.kafka.connect.runtime.errors.RetryWithToleranceOperator;
import org.apache.kafka.connect.runtime.isolation.LoaderSwap;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.source.SourceRecord;

/**
 * What Kafka's worker builds around a task's records (its {@code Worker.buildWorkerTask}), with
 * Kafka's own classes: the connector config ({@code ConnectorConfig}, {@code SinkConnectorConfig}),
 * the {@code errors.*} operator ({@code RetryWithToleranceOperator}) with its reporters (a {@code
 * LogReporter}, and for a sink with {@code errors.deadletterqueue.topic.name} a {@code
 * DeadLetterQueueReporter}, which creates the topic) and the {@code TransformationChain} of the
 * config's {@code transforms} and {@code predicates}, each loaded by Kafka's isolation in its own
 * plugin's class loader. The loops call {@link #operator} around converters and {@link #chain}
 * between poll and convert (source) or convert and put (sink); closed when the task ends.
 *
 * @param <T> the record an error report carries: the source record, or the consumed record
 * @param <R> the records the transformations see
 */
final class RecordStages<T, R extends ConnectRecord<R>> implements AutoCloseable {
  final ConnectorConfig config;
  final RetryWithToleranceOperator<T> operator;
  final TransformationChain<T, R> chain;
  private final ConnectMetrics metrics;
  private final ErrorHandlingMetrics errorMetrics;

  private RecordStages(TaskSetup setup, ConnectorConfig config) {
    this.config = config;
    this.metrics = new ConnectMetrics(setup.connectorName, new MetricsOnly(setup.worker), Time.SYSTEM, "kconnect");
    this.errorMetrics = new ErrorHandlingMetrics(setup.id, metrics);
    this.operator = new RetryWithToleranceOperator<>(
        config.errorRetryTimeout(), config.errorMaxDelayInMillis(), config.errorToleranceType(), Time.SYSTEM,
        errorMetrics);
    try (LoaderSwap swap = setup.plugins.withClassLoader(setup.loader)) {
      this.chain = new TransformationChain<>(config.<R>transformationStages(setup.plugins, setup.id, metrics), operator);
    }
  }

  /** A source task's stages: errors are logged (Kafka's source tasks have no dead letter queue). */
  static RecordStages<SourceRecord, SourceRecord> source(TaskSetup setup) {
    ConnectorConfig config;
    try (LoaderSwap swap = setup.plugins.withClassLoader(setup.loader)) {
      config = new ConnectorConfig(setup.plugins, setup.connector);
    }
    RecordStages<SourceRecord, SourceRecord> stages = new RecordStages<>(setup, config);
    stages.operator.reporters(List.of(new LogReporter.Source(setup.id, config, stages.errorMetrics)));
    return stages;
  }

  /** A sink task's stages: errors logged, and sent to the dead letter queue when the config names one. */
  static RecordStages<ConsumerRecord<byte[], byte[]>, SinkRecord> sink(TaskSetup setup) {
    SinkConnectorConfig config;
    try (LoaderSwap swap = setup.plugins.withClassLoader(setup.loader)) {
      config = new SinkConnectorConfig(setup.plugins, setup.connector);
    }
    RecordStages<ConsumerRecord<byte[], byte[]>, SinkRecord> stages = new RecordStages<>(setup, config);
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

  /** Closes the transformations, the reporters (the dead letter queue's producer) and the metrics. */
  @Override
  public void close() {
    chain.close();
    operator.close();
    errorMetrics.close();
    metrics.stop();
  }

  /**
   * The worker config {@code ConnectMetrics} reads: the worker's {@code metrics.*} keys, no metric
   * reporter (a task's metrics stay in its JVM, as its plugin metrics do).
   */
  private static final class MetricsOnly extends WorkerConfig {
    MetricsOnly(Map<String, String> worker) {
      super(baseConfigDef(), props(worker));
    }

    private static Map<String, String> props(Map<String, String> worker) {
      Map<String, String> props = new HashMap<>();
      worker.forEach((key, value) -> {
        if (key.startsWith("metrics.") && value != null) {
          props.put(key, value);
        }
      });
      props.put("metric.reporters", "");
      props.put("bootstrap.servers", worker.getOrDefault("bootstrap.servers", "localhost:9092"));
      // Required keys that metrics never read: a class every JVM here has, not one from plugin.path.
      props.put("key.converter", "org.apache.kafka.connect.storage.StringConverter");
      props.put("value.converter", "org.apache.kafka.connect.storage.StringConverter");
      return props;
    }
  }
}
