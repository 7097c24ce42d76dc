package dev.kconnect.java.task;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * A Java host: the one Spark task, on an executor JVM, that runs the Java connector tasks the worker
 * places on it (kconnect_spark.host_run), as kconnect_spark.remote.run_host runs Python ones. What
 * kconnect's Java host job calls (through {@code dev.kconnect.java.spark.ExecutorTask}, in a class
 * loader of Kafka's jars alone) with its launch (kconnect_spark.java_job.host_launch).
 *
 * <p>It connects as a host ({@link HostConnection}) and follows the worker's messages: {@code run}
 * starts the task in a thread of its own ({@link TaskMain}: its own task connection, as always);
 * {@code cancel} abandons a task that did not stop in time, as Kafka's WorkerTask cancel does (its
 * control connection closed, its thread interrupted and left, its end reported at once; its
 * neighbours run on); {@code close} means no task comes any more: the host returns once its tasks
 * have ended. Each task that ends is reported {@code ended}, with its error if it threw; every second
 * the host reports the share of a core its tasks used ({@code load}, {@link HostLoad}). When Spark
 * kills the host's Spark task (its job group cancelled), every task is abandoned and the host
 * returns at once.
 */
public final class JavaHost implements Function<String, String> {
  /** Why a task's end is reported before its thread ended (the worker's words for a Python host too). */
  static final String ABANDONED = "the worker abandoned the task after it did not stop in time";
  /** How often the host reports its load: kconnect_spark.remote.LOAD_REPORT_INTERVAL_S, as a Python host. */
  static final long LOAD_REPORT_INTERVAL_MS = 1000;

  private final Map<String, TaskMain> running = new ConcurrentHashMap<>();

  /** Creates a host; one per Spark task. */
  public JavaHost() {}

  @Override
  public String apply(String launchJson) {
    try {
      return run(ControlChannel.JSON.readTree(launchJson));
    } catch (InterruptedException killed) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Spark killed the Java host's Spark task", killed);
    } catch (RuntimeException error) {
      throw error;
    } catch (Exception error) {
      throw new IllegalStateException(error);
    }
  }

  private String run(JsonNode launch) throws Exception {
    String label = launch.path("label").asText();
    try (HostConnection worker = HostConnection.open(
        launch.path("host").asText(), launch.path("port").asInt(), launch.path("token").asText())) {
      ThreadGroup tasks = taskGroup(label);
      Thread reporter = reportLoad(worker, tasks, label);
      try {
        for (JsonNode message; (message = worker.next()) != null; ) {
          String type = message.path("type").asText();
          String token = message.path("task").asText();
          if (type.equals("run")) {
            start(worker, tasks, token, ControlChannel.JSON.readTree(message.path("launch").asText()));
          } else if (type.equals("cancel")) {
            abandon(worker, token);
          } else if (type.equals("close")) {
            break;
          }
        }
        for (TaskMain task : new ArrayList<>(running.values())) {
          task.join();
        }
      } catch (InterruptedException killed) {
        running.values().forEach(TaskMain::abandon);
        throw killed;
      } finally {
        reporter.interrupt();
      }
    }
    return label + " closed";
  }

  /**
   * The thread group of the host's tasks and of every thread they start, whose CPU time is the
   * host's load. A daemon group: on Java 17 it is dropped once its last thread has ended rather than
   * kept by its parent group for the JVM's life (the load reporter, one of its threads, keeps it
   * while the host runs, so a task started late still finds it); Java 19 on drops it anyway.
   */
  @SuppressWarnings("removal") // setDaemon: deprecated for removal, and a no-op, from Java 19
  private static ThreadGroup taskGroup(String label) {
    ThreadGroup tasks = new ThreadGroup("kconnect " + label);
    tasks.setDaemon(true);
    return tasks;
  }

  /**
   * Starts the thread, in {@code tasks}, that reports the load of its other threads every
   * {@link #LOAD_REPORT_INTERVAL_MS} ({@link HostLoad}) until interrupted. Where the JVM cannot
   * measure a thread's CPU time it reports nothing, and the worker places this host's tasks by count.
   */
  private static Thread reportLoad(HostConnection worker, ThreadGroup tasks, String label) {
    HostLoad load = HostLoad.supported() ? new HostLoad(tasks) : null;
    Thread reporter = new Thread(tasks, () -> {
      try {
        while (true) {
          Thread.sleep(LOAD_REPORT_INTERVAL_MS);
          if (load != null) {
            worker.load(load.sample());
          }
        }
      } catch (InterruptedException hostEnded) {
        // the host returns: nothing more to report
      }
    }, "kconnect-host-load " + label);
    reporter.setDaemon(true);
    reporter.start();
    return reporter;
  }

  /** Runs one task (its launch: kconnect_spark.java_job.launch) in a thread of its own, in {@code tasks}. */
  private void start(HostConnection worker, ThreadGroup tasks, String token, JsonNode launch) {
    TaskMain task = new TaskMain(launch, tasks, (ended, error) -> {
      if (running.remove(token, ended)) { // an abandoned task's end was reported already
        worker.ended(token, error);
      }
    });
    running.put(token, task);
    task.start();
  }

  /** Abandons a task that did not stop in time ({@link TaskMain#abandon}); its end is reported now. */
  private void abandon(HostConnection worker, String token) {
    TaskMain task = running.remove(token);
    if (task != null) {
      task.abandon();
      worker.ended(token, ABANDONED);
    }
  }
}
