package dev.kconnect.java.task;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The task side of kconnect's control channel (kconnect_spark.channel: one JSON object per line),
 * spoken by a Java task as the Python task loops speak it: {@code hello}, then the worker's {@code
 * target}; reports ({@code running}, {@code paused}, {@code failed}, {@code stopped}, {@code topic},
 * {@code metrics} ({@link TaskMetrics}));
 * requests answered by {@code reply} or {@code error} ({@code commit}, {@code read_offsets}). A reader
 * thread applies target changes; a broken channel sets the target to STOPPED, as in Python.
 */
final class ControlChannel implements AutoCloseable {
  static final ObjectMapper JSON = new ObjectMapper();

  private final Socket socket;
  private final OutputStream out;
  private final BufferedReader in;
  private final Map<Integer, CompletableFuture<JsonNode>> replies = new ConcurrentHashMap<>();
  private final AtomicInteger ids = new AtomicInteger();
  private final Object targetChanged = new Object();
  private volatile String target;
  private volatile String lost;

  private ControlChannel(Socket socket) throws IOException {
    this.socket = socket;
    this.out = socket.getOutputStream();
    this.in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
  }

  /** Connects as task {@code task}, says hello and waits for the worker's first target state. */
  static ControlChannel task(String host, int port, String token, String task, int generation) throws IOException {
    ControlChannel channel = new ControlChannel(new Socket(host, port));
    channel.send(hello("hello", token).put("task", task).put("generation", generation).put("runtime", "java"));
    String first = channel.in.readLine();
    JsonNode message = first == null ? null : JSON.readTree(first);
    if (message == null || !message.path("type").asText().equals("target")) {
      throw new IOException("the worker refused task " + task + "'s control connection");
    }
    channel.target = message.path("state").asText();
    Thread reader = new Thread(channel::readLoop, "kconnect-control-" + task);
    reader.setDaemon(true);
    reader.start();
    return channel;
  }

  /** The first message of a connection to the worker: {@code type}, the token, this process and host. */
  static ObjectNode hello(String type, String token) throws IOException {
    ObjectNode hello = JSON.createObjectNode().put("type", type).put("token", token);
    hello.put("pid", ProcessHandle.current().pid());
    hello.put("host", InetAddress.getLocalHost().getHostName());
    return hello;
  }

  /** The target state the worker last sent: STARTED, PAUSED or STOPPED. */
  String target() {
    return target;
  }

  /** Waits until the target is not {@code current}, at most {@code timeoutMs}; returns the target. */
  String awaitChange(String current, long timeoutMs) throws InterruptedException {
    synchronized (targetChanged) {
      if (target.equals(current)) {
        targetChanged.wait(timeoutMs);
      }
    }
    return target;
  }

  /** Sends one message; an IOException once the channel broke. */
  synchronized void send(ObjectNode message) throws IOException {
    if (lost != null) {
      throw new IOException("control channel to the worker lost (" + lost + ")");
    }
    out.write(JSON.writeValueAsBytes(message));
    out.write('\n');
    out.flush();
  }

  /** Sends a request and waits for the worker's reply: its result, or an exception with its error. */
  JsonNode request(ObjectNode message) throws Exception {
    int id = ids.incrementAndGet();
    CompletableFuture<JsonNode> reply = new CompletableFuture<>();
    replies.put(id, reply);
    send(message.put("id", id));
    try {
      return reply.get();
    } catch (java.util.concurrent.ExecutionException error) {
      throw (Exception) error.getCause();
    }
  }

  private void readLoop() {
    String reason = "the worker closed the connection";
    try {
      for (String line; (line = in.readLine()) != null; ) {
        apply(JSON.readTree(line));
      }
    } catch (IOException error) {
      reason = String.valueOf(error);
    }
    lost = reason;
    replies.values().forEach(r -> r.completeExceptionally(new IOException("control channel lost: " + lost)));
    setTarget("STOPPED");
  }

  private void apply(JsonNode message) {
    String type = message.path("type").asText();
    if (type.equals("target")) {
      setTarget(message.path("state").asText());
    } else if (type.equals("reply") || type.equals("error")) {
      CompletableFuture<JsonNode> reply = replies.remove(message.path("id").asInt());
      if (reply == null) {
        return;
      }
      if (type.equals("reply")) {
        reply.complete(message.path("result"));
      } else {
        reply.completeExceptionally(new IllegalStateException("the worker: " + message.path("error").asText()));
      }
    }
  }

  private void setTarget(String state) {
    synchronized (targetChanged) {
      target = state;
      targetChanged.notifyAll();
    }
  }

  /** Whether the channel broke (the task then stops without committing). */
  boolean lost() {
    return lost != null;
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }
}
