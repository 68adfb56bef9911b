package dev.berth.local;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * Waits for a controller started as a {@link LoggedProcess} to answer 200 on its readiness endpoint
 * ({@code http://127.0.0.1:PORT/readyz}, controller-runtime's), failing at once, with its log's
 * tail, if the process exits meanwhile.
 */
public final class ReadinessProbe {
  private ReadinessProbe() {}

  public static void await(LoggedProcess process, int port, Duration timeout, String what) {
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    HttpRequest readyz =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/readyz"))
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
        throw new IllegalStateException("interrupted waiting for " + what, e);
      }
      try {
        Thread.sleep(200); // a poll interval: the condition is the HTTP answer above
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted waiting for " + what, e);
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
