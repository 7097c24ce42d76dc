package dev.kconnect.java.task;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.HashMap;
import java.util.Map;

/**
 * The share of a core a Java host's threads used: the figure a host reports as its {@code load},
 * which the worker places tasks by (kconnect_spark.host_run.place). A Python host measures its whole
 * process (kconnect_spark.remote.report_load); a Java host shares its executor JVM with Spark and
 * with other hosts, so it measures the threads of its own thread group: its tasks' threads and every
 * thread they start, Kafka clients' network threads among them, since a new thread joins the group
 * of the thread that starts it.
 */
final class HostLoad {
  private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

  private final ThreadGroup group;
  private Map<Long, Long> lastCpu = new HashMap<>();
  private long lastAt = System.nanoTime();

  /** Measures {@code group}, from now on. */
  HostLoad(ThreadGroup group) {
    this.group = group;
  }

  /** Whether this JVM measures each thread's CPU time; turns it on if it is supported but off. */
  static boolean supported() {
    if (!THREADS.isThreadCpuTimeSupported()) {
      return false;
    }
    if (!THREADS.isThreadCpuTimeEnabled()) {
      THREADS.setThreadCpuTimeEnabled(true);
    }
    return true;
  }

  /**
   * The share of a core the group's threads, but the calling one, used since the previous sample (or
   * since creation): the CPU time each live thread gained over the wall time. A thread that ended
   * since the previous sample is missing its last interval; a thread started since counts all of its
   * time.
   */
  synchronized double sample() {
    Thread[] live = new Thread[group.activeCount() + 16]; // activeCount is an estimate
    int count = group.enumerate(live, true);
    Map<Long, Long> cpu = new HashMap<>();
    long used = 0;
    for (int i = 0; i < count; i++) {
      if (live[i] == Thread.currentThread()) {
        continue; // the reporter: its own time is not the tasks'
      }
      @SuppressWarnings("deprecation") // Thread.threadId() is Java 19+; the facade runs on Java 17
      long id = live[i].getId();
      long nanos = THREADS.getThreadCpuTime(id);
      if (nanos >= 0) { // -1: the thread ended meanwhile
        cpu.put(id, nanos);
        used += nanos - lastCpu.getOrDefault(id, 0L);
      }
    }
    long at = System.nanoTime();
    double share = used / (double) Math.max(at - lastAt, 1_000_000L);
    lastCpu = cpu;
    lastAt = at;
    return share;
  }
}
