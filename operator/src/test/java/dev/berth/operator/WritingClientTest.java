package dev.berth.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import dev.berth.api.v1beta1.Workload;
import dev.berth.operator.kube.StatusPut;
import dev.berth.testing.Jobs;
import dev.berth.testing.Workloads;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The writers' client sends each request once: a write answered 500 or 504 (which the API server
 * may send after applying it) is not re-sent by fabric8, whose re-send at the same resourceVersion
 * would be refused 409 and taken for "not written". Against an HTTP stand-in that answers every
 * request with a failure and counts them: the operator's base client (fabric8's retry on, as the
 * informers keep it) sends a Workload status write ({@link StatusPut}, which goes through the
 * client's own HTTP client and so its retry) and a read four times; the writing client sends a
 * status write and a Job update once, and the caller sees the code.
 */
class WritingClientTest {
  private HttpServer server;
  private final Map<String, AtomicInteger> requests = new ConcurrentHashMap<>();
  private volatile int code = 500;

  @BeforeEach
  void start() throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext(
        "/",
        exchange -> {
          exchange.getRequestBody().readAllBytes();
          requests
              .computeIfAbsent(
                  exchange.getRequestMethod() + " " + exchange.getRequestURI().getPath(),
                  k -> new AtomicInteger())
              .incrementAndGet();
          byte[] body =
              ("{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\","
                      + "\"message\":\"stand-in failure\",\"code\":"
                      + code
                      + "}")
                  .getBytes(StandardCharsets.UTF_8);
          exchange.getResponseHeaders().add("Content-Type", "application/json");
          exchange.sendResponseHeaders(code, body.length);
          exchange.getResponseBody().write(body);
          exchange.close();
        });
    server.start();
  }

  @AfterEach
  void stop() {
    server.stop(0);
  }

  /** The operator's client, with fabric8's retry as configured but quick (1 ms, 3 retries). */
  private KubernetesClient base() {
    return Clients.builder(Duration.ofSeconds(5))
        .withConfig(
            new ConfigBuilder()
                .withMasterUrl("http://127.0.0.1:" + server.getAddress().getPort())
                .withRequestRetryBackoffInterval(1)
                .withRequestRetryBackoffLimit(3)
                .build())
        .build();
  }

  private int sent(String request) {
    AtomicInteger n = requests.get(request);
    return n == null ? 0 : n.get();
  }

  private static Workload workload() {
    Workload w = Workloads.named("w").in("team").queue("lq").request("cpu", "1").build();
    w.getMetadata().setResourceVersion("7");
    w.getMetadata().setUid("u-1");
    return w;
  }

  @Test
  void theBaseClientRetriesAStatusPutAndAReadButTheWritingClientSendsEachWriteOnce() {
    String status = "PUT /apis/berth.dev/v1beta1/namespaces/team/workloads/w/status";
    try (KubernetesClient base = base()) {
      assertThatThrownBy(() -> StatusPut.replace(base, workload()))
          .isInstanceOfSatisfying(
              KubernetesClientException.class, e -> assertThat(e.getCode()).isEqualTo(500));
      assertThat(sent(status)).as("fabric8's retry re-sends a status PUT").isEqualTo(4);
      assertThatThrownBy(
              () -> base.resources(Workload.class).inNamespace("team").withName("w").get())
          .isInstanceOf(KubernetesClientException.class);
      assertThat(sent("GET /apis/berth.dev/v1beta1/namespaces/team/workloads/w")).isEqualTo(4);

      KubernetesClient writes = BerthOperator.writingClient(base);
      code = 504;
      assertThatThrownBy(() -> StatusPut.replace(writes, workload()))
          .isInstanceOfSatisfying(
              KubernetesClientException.class, e -> assertThat(e.getCode()).isEqualTo(504));
      assertThat(sent(status)).as("the writing client sends it once").isEqualTo(5);

      Job job = Jobs.named("j").in("team").queue("lq").request("cpu", "1").build();
      job.getMetadata().setResourceVersion("3");
      job.getSpec().setSuspend(false);
      assertThatThrownBy(() -> writes.resource(job).update())
          .isInstanceOfSatisfying(
              KubernetesClientException.class, e -> assertThat(e.getCode()).isEqualTo(504));
      assertThat(sent("PUT /apis/batch/v1/namespaces/team/jobs/j")).isEqualTo(1);
    }
  }
}
