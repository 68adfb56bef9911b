package dev.berth.local;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One control-plane process (kube-controller-manager, kube-scheduler, KWOK) with its output in a
 * log file that outlives it, so a failure can be read afterwards. Stopped with SIGTERM, then
 * SIGKILL.
 */
public final class LoggedProcess implements AutoCloseable {
  private final String name;
  private final Process process;
  private final Path log;

  private LoggedProcess(String name, Process process, Path log) {
    this.name = name;
    this.process = process;
    this.log = log;
  }

  public static LoggedProcess start(String name, List<String> command, Path log)
      throws IOException {
    Process process =
        new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    return new LoggedProcess(name, process, log);
  }

  /**
   * Starts a controller and waits until its readiness endpoint on {@code probePort} answers (see
   * {@link #awaitReady}); stops it and fails if it does not within {@code timeout}.
   */
  public static LoggedProcess startReady(
      String name, List<String> command, Path log, int probePort, Duration timeout)
      throws IOException {
    LoggedProcess process = start(name, command, log);
    try {
      process.awaitReady(probePort, timeout);
    } catch (RuntimeException e) {
      process.close();
      throw e;
    }
    return process;
  }

  /** Fails with the log's tail if the process has exited (it is meant to run until closed). */
  public void checkAlive() {
    if (!process.isAlive()) {
      throw new IllegalStateException(
          name + " exited with " + process.exitValue() + "; log " + log + ":\n" + tail());
    }
  }

  /**
   * Polls its readiness endpoint, {@code http://127.0.0.1:<probePort>/readyz}, until it answers
   * 200; fails with the log's tail if the process exits or {@code timeout} passes first.
   */
  public void awaitReady(int probePort, Duration timeout) {
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    HttpRequest readyz =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + probePort + "/readyz"))
            .timeout(Duration.ofSeconds(2))
            .build();
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      checkAlive();
      try {
        if (http.send(readyz, HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
          return;
        }
      } catch (IOException notListeningYet) {
        // Starting up; asked again below.
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted waiting for " + name, e);
      }
      try {
        Thread.sleep(200); // a poll interval: the condition is the HTTP answer above
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted waiting for " + name, e);
      }
    }
    throw new IllegalStateException(
        name + " not ready within " + timeout.toSeconds() + " s; log " + log + ":\n" + tail());
  }

  public boolean alive() {
    return process.isAlive();
  }

  public Path log() {
    return log;
  }

  /** The last 20 lines. */
  public String tail() {
    return tail(log);
  }

  private static String tail(Path log) {
    try {
      List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size()));
    } catch (IOException e) {
      return "(no log: " + e.getMessage() + ")";
    }
  }

  @Override
  public void close() {
    process.destroy();
    try {
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
    }
  }
}
