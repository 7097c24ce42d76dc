package dev.kconnect.java.spark;

import java.io.File;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.apache.spark.TaskContext;
import org.apache.spark.api.java.function.FlatMapFunction;

/**
 * The function kconnect's Java host job runs in its one Spark task, on an executor JVM: each
 * partition row is one Java host's launch (JSON, kconnect_spark.java_job.host_launch). The host runs
 * in a class loader of kconnect's facade and Kafka's jars alone (the platform class loader its
 * parent), so Spark's own Jackson, slf4j and Kafka client versions never meet Kafka Connect's; that
 * loader is built once per executor JVM and facade build and shared by every Java host there (it is
 * never closed: its classes, and the plugin scans kept in them, serve the next host). {@code
 * dev.kconnect.java.task.JavaHost} does the work. Compiled against Spark's jars by kconnect_java.build
 * (never committed as a binary), and given to Spark with addJar.
 */
public final class ExecutorTask implements FlatMapFunction<Iterator<String>, String> {
  private static final long serialVersionUID = 1L;
  /** The facade's class loaders in this JVM, by class path (a rebuilt facade has another). */
  private static final Map<String, ClassLoader> LOADERS = new ConcurrentHashMap<>();

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
    ClassLoader loader = LOADERS.computeIfAbsent(classpath, ExecutorTask::facade);
    List<String> outcomes = new ArrayList<>();
    Thread thread = Thread.currentThread();
    ClassLoader previous = thread.getContextClassLoader();
    try {
      thread.setContextClassLoader(loader);
      Function<String, String> host = (Function<String, String>)
          loader.loadClass("dev.kconnect.java.task.JavaHost").getDeclaredConstructor().newInstance();
      while (launches.hasNext()) {
        outcomes.add(host.apply(launches.next()));
      }
    } finally {
      thread.setContextClassLoader(previous);
    }
    return outcomes.iterator();
  }

  private static ClassLoader facade(String classpath) {
    List<URL> urls = new ArrayList<>();
    try {
      for (String jar : classpath.split(File.pathSeparator)) {
        urls.add(new File(jar).toURI().toURL());
      }
    } catch (MalformedURLException error) {
      throw new IllegalArgumentException("kconnect's Java class path " + classpath, error);
    }
    return new URLClassLoader("kconnect-java-task", urls.toArray(new URL[0]), ClassLoader.getPlatformClassLoader());
  }
}
