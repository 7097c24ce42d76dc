package dev.kconnect.java.task;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.function.BiConsumer;
import org.apache.kafka.connect.runtime.isolation.LoaderSwap;

/**
 * One Java connector task on a {@link JavaHost}, run to its end in a thread of its own. The launch is
 * a JSON TaskSpec (kconnect_spark.java_job.launch); the task connects to the worker's control
 * channel as the task, runs {@link SourceLoop} or {@link SinkLoop}, and reports {@code stopped}, or
 * {@code failed} with the Java stack trace. An abandoned task ({@link #abandon}) reports nothing more.
 */
final class TaskMain {
  private final JsonNode launch;
  private final String task;
  private final Thread thread;
  private volatile ControlChannel control;
  private volatile boolean abandoned;

  /**
   * A task to run from {@code launch}, its thread in {@code group} (its host's, which measures the
   * group's CPU: {@link HostLoad}); {@code ended} gets it and its stack trace when it threw, else null.
   */
  TaskMain(JsonNode launch, ThreadGroup group, BiConsumer<TaskMain, String> ended) {
    this.launch = launch;
    this.task = launch.path("connector").asText() + "-" + launch.path("task").asInt();
    this.thread = new Thread(group, () -> ended.accept(this, runToEnd()), "kconnect-task-" + task);
    thread.setDaemon(true); // an abandoned task must not keep the JVM up
  }

  /** Starts the task's thread. */
  void start() {
    thread.start();
  }

  /** Waits, interruptibly, until the task's thread has ended. */
  void join() throws InterruptedException {
    thread.join();
  }

  /**
   * Abandons the task, as Kafka's WorkerTask cancel does: its control connection is closed, so
   * nothing it does from now on reaches the worker (no offset commit, no report), and its thread is
   * interrupted, to wake it if it waits; a thread that ignores that is left to end when it can.
   */
  void abandon() {
    abandoned = true;
    closeControl();
    thread.interrupt();
  }

  private String runToEnd() {
    try {
      run();
      return null;
    } catch (Throwable failure) {
      StringWriter trace = new StringWriter();
      failure.printStackTrace(new PrintWriter(trace));
      return trace.toString();
    }
  }

  /** Runs the task; throws when its control channel broke (nobody supervises it then). */
  private void run() throws Exception {
    try (ControlChannel control = ControlChannel.task(launch.path("host").asText(), launch.path("port").asInt(),
        launch.path("token").asText(), task, launch.path("generation").asInt())) {
      this.control = control;
      if (abandoned) {
        closeControl(); // abandoned while it connected
      }
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
        return;
      }
      if (control.lost()) {
        throw new IllegalStateException("control channel to the worker lost: task " + task + " stopped");
      }
      control.send(ControlChannel.JSON.createObjectNode().put("type", "stopped"));
    }
  }

  private void closeControl() {
    ControlChannel open = control;
    if (open != null) {
      try {
        open.close();
      } catch (IOException ignored) {
        // closing is all abandoning asks of it
      }
    }
  }
}
