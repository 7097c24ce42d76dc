package dev.kconnect.java.spark;

import java.io.File;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.function.Function;
import org.apache.spark.TaskContext;
import org.apache.spark.api.java.function.FlatMapFunction;

/**
 * The function kconnect's Java task job runs in its one Spark task, on an executor JVM: each
 * partition row is one Java connector task's launch (JSON). The task runs in a class loader of
 * kconnect's facade and Kafka's jars alone (the platform class loader its parent), so Spark's own
 * Jackson, slf4j and Kafka client versions never meet Kafka Connect's; {@code
 * dev.kconnect.java.task.TaskMain} does the work. Compiled against Spark's jars by kconnect_java.build
 * (never committed as a binary), and given to Spark with addJar.
 */
public final class ExecutorTask implements FlatMapFunction<Iterator<String>, String> {
  private static final long serialVersionUID = 1L;

  private final String classpath;

  /** {@code classpath}: the facade's jars, joined with the path separator, at the same path on every node. */
  public ExecutorTask(String classpath) {
    this.classpath = classpath;
  }

  @Override
  @SuppressWarnings("unchecked")
  public Iterator<String> call(Iterator<String> launches) throws Exception {
    TaskContext context = TaskContext.get();
    if (context != null && context.attemptNumber() > 0) {
      // A connector task never runs twice (kconnect_spark.remote.refuse_rerun says why).
      throw new IllegalStateException("TaskRerunRefused: Spark started attempt " + context.attemptNumber()
          + " of a Java connector task's Spark task; a connector task never runs twice");
    }
    List<URL> urls = new ArrayList<>();
    for (String jar : classpath.split(File.pathSeparator)) {
      urls.add(new File(jar).toURI().toURL());
    }
    List<String> outcomes = new ArrayList<>();
    Thread thread = Thread.currentThread();
    ClassLoader previous = thread.getContextClassLoader();
    try (URLClassLoader loader = new URLClassLoader(
        "kconnect-java-task", urls.toArray(new URL[0]), ClassLoader.getPlatformClassLoader())) {
      thread.setContextClassLoader(loader);
      Function<String, String> main = (Function<String, String>)
          loader.loadClass("dev.kconnect.java.task.TaskMain").getDeclaredConstructor().newInstance();
      while (launches.hasNext()) {
        outcomes.add(main.apply(launches.next()));
      }
    } finally {
      thread.setContextClassLoader(previous);
    }
    return outcomes.iterator();
  }
}
