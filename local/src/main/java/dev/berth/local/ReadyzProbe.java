package dev.berth.local;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** Waits for a controller-runtime manager's readiness endpoint, as its own probes would. */
final class ReadyzProbe {
  private ReadyzProbe() {}

  /**
   * Polls {@code /readyz} on {@code probePort} until it answers 200; fails with the process's log
   * tail if the process exits or {@code timeout} passes first.
   */
  static void await(LoggedProcess process, int probePort, Duration timeout, String what) {
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    HttpRequest readyz =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + probePort + "/readyz"))
            .timeout(Duration.ofSeconds(2))
            .build();
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      process.checkAlive();
      try {
        if (http.send(readyz, HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
          return;
        }
      } catch (IOException notListeningYet) {
        // Starting up; asked again below.
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted waiting for the " + what, e);
      }
      try {
        Thread.sleep(200); // a poll interval: the condition is the HTTP answer above
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted waiting for the " + what, e);
      }
    }
    throw new IllegalStateException(
        what
            + " not ready within "
            + timeout.toSeconds()
            + " s; log "
            + process.log()
            + ":\n"
            + process.tail());
  }
}
