package dev.kconnect.java;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.storage.OffsetStorageReader;

/**
 * A source connector's own {@link OffsetStorageReader}: each read is an event {@code {"type":
 * "offsets", "request": n, "partitions": [...]}} on the connector's event queue, which the worker's
 * Python side reads ({@code connector_events}), answers from its offset store (the one the tasks
 * read, standalone or distributed) with {@code connector_offsets_answer}, and this reader waits for.
 */
final class ConnectorOffsetReader implements OffsetStorageReader {
  /** As long as a Python task's read of its offsets waits for the worker. */
  private static final long WAIT_MS = 60_000;

  private static final ObjectMapper JSON = new ObjectMapper();

  private final BlockingQueue<ObjectNode> events;
  private final Map<Long, CompletableFuture<JsonNode>> pending = new ConcurrentHashMap<>();
  private final AtomicLong requests = new AtomicLong();
  private volatile boolean closed;

  ConnectorOffsetReader(BlockingQueue<ObjectNode> events) {
    this.events = events;
  }

  @Override
  public <T> Map<String, Object> offset(Map<String, T> partition) {
    return offsets(List.of(partition)).get(partition);
  }

  @Override
  public <T> Map<Map<String, T>, Map<String, Object>> offsets(Collection<Map<String, T>> partitions) {
    if (closed) {
      throw new ConnectException("Offset reader is closed: the connector has been stopped");
    }
    List<Map<String, T>> asked = new ArrayList<>(partitions);
    long request = requests.incrementAndGet();
    CompletableFuture<JsonNode> answer = new CompletableFuture<>();
    pending.put(request, answer);
    ObjectNode event = JSON.createObjectNode().put("type", "offsets").put("request", request);
    ArrayNode list = event.putArray("partitions");
    asked.forEach(partition -> list.add(JSON.valueToTree(partition)));
    events.add(event);
    try {
      JsonNode offsets = answer.get(WAIT_MS, TimeUnit.MILLISECONDS);
      Map<Map<String, T>, Map<String, Object>> result = new HashMap<>();
      for (int i = 0; i < asked.size(); i++) {
        Map<String, Object> offset = OffsetJson.toConnect(offsets.get(i));
        if (offset != null) {
          result.put(asked.get(i), offset);
        }
      }
      return result;
    } catch (InterruptedException interrupted) {
      Thread.currentThread().interrupt();
      throw new ConnectException("Interrupted while reading offsets", interrupted);
    } catch (ExecutionException failed) {
      throw new ConnectException("Failed to fetch offsets: " + failed.getCause().getMessage(), failed.getCause());
    } catch (TimeoutException late) {
      throw new ConnectException("Failed to fetch offsets: the worker did not answer within " + WAIT_MS + " ms");
    } catch (Exception unreadable) {
      throw new ConnectException("Failed to fetch offsets.", unreadable);
    } finally {
      pending.remove(request);
    }
  }

  /** The worker's answer to one read: {@code {"request": n, "offsets": [...]}} or {@code {"error": ...}}. */
  void answer(JsonNode body) {
    CompletableFuture<JsonNode> waiting = pending.get(body.path("request").asLong());
    if (waiting == null) {
      return; // the read gave up waiting
    }
    if (body.has("error")) {
      waiting.completeExceptionally(new ConnectException(body.path("error").asText()));
    } else {
      waiting.complete(body.path("offsets"));
    }
  }

  /** The connector stopped: reads waiting now, and any later, fail. */
  void close() {
    closed = true;
    pending.values().forEach(read -> read.completeExceptionally(new ConnectException("the connector has been stopped")));
  }
}
