package dev.kconnect.java.task;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.function.Function;
import org.apache.kafka.connect.runtime.isolation.LoaderSwap;

/**
 * Runs one Java connector task to its end: what kconnect's Spark job calls on an executor JVM
 * (through {@code dev.kconnect.java.spark.ExecutorTask}, in a class loader of Kafka's jars alone).
 * The launch is a JSON TaskSpec (kconnect_spark.java_job); the task connects to the worker's
 * control channel as a hosting Spark task and as the task, runs {@link SourceLoop} or {@link
 * SinkLoop}, and reports {@code stopped}, or {@code failed} with the Java stack trace. Answers a
 * one-line summary.
 */
public final class TaskMain implements Function<String, String> {
  /** Creates the entry point; one per Spark task. */
  public TaskMain() {}

  @Override
  public String apply(String launchJson) {
    try {
      return run(ControlChannel.JSON.readTree(launchJson));
    } catch (RuntimeException error) {
      throw error;
    } catch (Exception error) {
      throw new IllegalStateException(error);
    }
  }

  private static String run(JsonNode launch) throws Exception {
    String address = launch.path("host").asText();
    int port = launch.path("port").asInt();
    String task = launch.path("connector").asText() + "-" + launch.path("task").asInt();
    try (ControlChannel host = ControlChannel.host(address, port, launch.path("host_token").asText());
        ControlChannel control = ControlChannel.task(
            address, port, launch.path("token").asText(), task, launch.path("generation").asInt())) {
      try {
        TaskSetup setup = new TaskSetup(launch);
        // As Kafka's WorkerTask: the whole task runs with its plugin's loader as the thread's
        // context loader (Debezium loads its own classes through it).
        try (LoaderSwap swap = setup.plugins.withClassLoader(setup.loader)) {
          if (launch.path("kind").asText().equals("sink")) {
            new SinkLoop(setup, control).run();
          } else {
            new SourceLoop(setup, control).run();
          }
        }
      } catch (Throwable error) {
        if (control.lost()) {
          throw error;
        }
        StringWriter trace = new StringWriter();
        error.printStackTrace(new PrintWriter(trace));
        control.send(ControlChannel.JSON.createObjectNode().put("type", "failed").put("trace", trace.toString()));
        return task + " failed";
      }
      if (control.lost()) {
        throw new IllegalStateException("control channel to the worker lost: task " + task + " stopped");
      }
      control.send(ControlChannel.JSON.createObjectNode().put("type", "stopped"));
      return task + " stopped";
    }
  }
}
