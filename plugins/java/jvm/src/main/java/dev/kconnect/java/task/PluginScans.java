package dev.kconnect.java.task;

import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.connect.runtime.isolation.Plugins;

/**
 * Kafka's scans of {@code plugin.path} in this JVM, one per scan config ({@code plugin.path} and
 * {@code plugin.discovery}): the first Java task to need one scans, every later task of any Java
 * host in this executor JVM shares it, as Kafka's worker shares its one {@link Plugins} among its
 * tasks. Plugins added to {@code plugin.path} later are seen by the next worker (a new Spark
 * application), as Kafka's worker sees them after a restart.
 */
final class PluginScans {
  private static final Map<Map<String, String>, Plugins> SCANS = new HashMap<>();

  private PluginScans() {}

  /** The {@link Plugins} of {@code scan}, scanned on first use; concurrent first uses scan once. */
  static synchronized Plugins of(Map<String, String> scan) {
    return SCANS.computeIfAbsent(Map.copyOf(scan), Plugins::new);
  }
}
