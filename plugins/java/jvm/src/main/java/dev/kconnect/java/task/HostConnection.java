package dev.kconnect.java.task;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Java host's connection to the worker (kconnect_spark.control_server's host side): {@code host}
 * hello, then the worker's {@code run}, {@code cancel} and {@code close} in, {@code ended} and
 * {@code load} out.
 * A reader thread queues what arrives, so the Spark task's thread waits on the queue, where Spark's
 * kill interrupts it (a socket read would not notice).
 */
final class HostConnection implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(HostConnection.class);
  private static final JsonNode END = ControlChannel.JSON.createObjectNode().put("type", "end");

  private final Socket socket;
  private final OutputStream out;
  private final BlockingQueue<JsonNode> messages = new LinkedBlockingQueue<>();

  private HostConnection(Socket socket) throws IOException {
    this.socket = socket;
    this.out = socket.getOutputStream();
  }

  /** Connects as the hosting Spark task with {@code token}; the worker then sends its tasks. */
  static HostConnection open(String host, int port, String token) throws IOException {
    HostConnection connection = new HostConnection(new Socket(host, port));
    connection.send(ControlChannel.hello("host", token).put("runtime", "java").toString());
    Thread reader = new Thread(connection::readLoop, "kconnect-host-" + token.substring(0, 8));
    reader.setDaemon(true);
    reader.start();
    return connection;
  }

  /** The worker's next message, or null once the connection ended; waits, interruptibly. */
  JsonNode next() throws InterruptedException {
    JsonNode message = messages.take();
    if (message == END) {
      messages.add(END); // every later call ends too
      return null;
    }
    return message;
  }

  /** Tells the worker task {@code token} ended, with {@code error} (a stack trace) if it threw. */
  void ended(String token, String error) {
    try {
      send(ControlChannel.JSON.createObjectNode().put("type", "ended").put("task", token).put("error", error).toString());
    } catch (IOException lost) {
      // the worker is gone: the task's own connection told it already, or it learns from Spark
    }
  }

  /** Tells the worker the share of a core the host used since its last report ({@link HostLoad}). */
  void load(double cpu) {
    try {
      send(ControlChannel.JSON.createObjectNode().put("type", "load").put("cpu", Math.round(cpu * 1000) / 1000.0).toString());
    } catch (IOException lost) {
      // the worker is gone: the reader thread sees it and the host's tasks end with it
    }
  }

  private synchronized void send(String line) throws IOException {
    out.write((line + "\n").getBytes(StandardCharsets.UTF_8));
    out.flush();
  }

  private void readLoop() {
    try (BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8))) {
      for (String line; (line = in.readLine()) != null; ) {
        messages.add(ControlChannel.JSON.readTree(line));
      }
    } catch (IOException lost) {
      if (socket.isClosed()) {
        return; // this host closed it (close()), after its tasks ended: not a loss
      }
      LOG.warn("A Java host's connection to the worker was lost; its tasks stop with their own: {}", lost.toString());
    } finally {
      messages.add(END);
    }
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }
}
