package dev.berth.webhook.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.webhook.tls.CertificateAuthority;
import dev.berth.webhook.tls.ServingKeyManager;
import dev.berth.webhook.validation.QueueScope;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

class WebhookWarmupTest {
  @Test
  void everyWarmupReviewIsAnsweredByTheRealRoutesOverACertificateForTheServiceOnly()
      throws Exception {
    var ca = CertificateAuthority.generate("warmup-ca", Duration.ofDays(1));
    // As in the chart: the certificate names the Service, not the loopback address.
    var keys =
        new ServingKeyManager(
            ca.issue(List.of("berth-webhook.berth-system.svc"), List.of(), Duration.ofDays(1)));
    Map<String, String> answers = new ConcurrentHashMap<>();
    Map<String, AdmissionHandler> routes = new java.util.HashMap<>();
    BerthWebhooks.routes("operator", QueueScope.NONE)
        .forEach(
            (path, handler) ->
                routes.put(
                    path,
                    call -> {
                      AdmissionAnswer answer = handler.handle(call);
                      answers.put(
                          path,
                          answer instanceof AdmissionAnswer.Invalid
                              ? "invalid"
                              : answer instanceof AdmissionAnswer.Allow ? "allowed" : "refused");
                      return answer;
                    }));
    WebhookServer server = new WebhookServer(routes, keys, 2);
    int port = server.start("127.0.0.1", 0);
    try {
      assertThat(WebhookWarmup.warm(port)).isEqualTo(WebhookWarmup.CALLS.size());
      // The validator ran its whole error path on the warm-up ClusterQueue.
      assertThat(answers).containsEntry(WebhookPaths.VALIDATE_CLUSTER_QUEUE, "invalid");
      assertThat(answers.keySet())
          .containsExactlyInAnyOrderElementsOf(
              WebhookWarmup.CALLS.stream().map(WebhookWarmup.Call::path).toList());
    } finally {
      server.stop();
    }
  }

  @Test
  void aWarmupThatReachesNothingIsLoggedNotThrown() throws Exception {
    int closed;
    try (ServerSocket s = new ServerSocket(0)) {
      closed = s.getLocalPort();
    }
    assertThat(WebhookWarmup.warm(closed)).isZero();
  }
}
