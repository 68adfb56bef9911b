package dev.berth.e2e.webhook;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.webhook.server.WebhookPaths;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * 50 requests at once, through the API server and straight at the webhook: every one answered
 * within the API server's 10 s webhook timeout, end to end.
 */
class WebhookConcurrencyIT {
  static final int CONCURRENT = 50;
  static final String NS = "webhook-concurrency";
  private static WebhookTestCluster cluster;
  private static ExecutorService pool;

  @BeforeAll
  static void setUp() {
    cluster = WebhookTestCluster.get();
    cluster.ensureNamespace(NS);
    pool = Executors.newFixedThreadPool(CONCURRENT);
  }

  @AfterAll
  static void tearDown() {
    pool.shutdownNow();
  }

  /** Runs the tasks all released at once; returns each one's latency in ms. */
  private static List<Long> runTogether(List<Callable<Void>> tasks) throws Exception {
    CountDownLatch gate = new CountDownLatch(1);
    List<Future<Long>> futures = new ArrayList<>();
    for (Callable<Void> task : tasks) {
      futures.add(
          pool.submit(
              () -> {
                gate.await();
                long start = System.nanoTime();
                task.call();
                return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
              }));
    }
    cluster.handlerTimes().reset();
    gate.countDown();
    List<Long> latencies = new ArrayList<>();
    for (Future<Long> f : futures) {
      latencies.add(f.get(30, TimeUnit.SECONDS));
    }
    return latencies;
  }

  /**
   * The ordinary user, for a burst: no client-side retry and a generous timeout, so a slow answer
   * is measured as slow instead of being hidden by a retry, and a hang still ends the test.
   */
  private static KubernetesClient burstClient() {
    io.fabric8.kubernetes.client.Config config =
        io.fabric8.kubernetes.client.Config.fromKubeconfig(cluster.kubeconfig());
    config.setImpersonateUsername(WebhookTestCluster.USER);
    config.setImpersonateGroups("system:authenticated");
    config.setRequestTimeout(30_000);
    config.setRequestRetryBackoffLimit(0);
    return new io.fabric8.kubernetes.client.KubernetesClientBuilder().withConfig(config).build();
  }

  /**
   * Every request was answered by the webhook itself (a mutation or a denial, never "failed calling
   * webhook"), so it answered within the API server's timeout; its own time per call is far below
   * that. End to end, nothing hangs.
   */
  private static void assertAnsweredInTime(List<Long> latencies) {
    assertThat(cluster.handlerTimes().maxMillis()).isLessThan(10_000);
    assertThat(latencies).allSatisfy(ms -> assertThat(ms).isLessThan(30_000));
  }

  private static String summary(String what, List<Long> latencies) {
    List<Long> sorted = latencies.stream().sorted().toList();
    return String.format(
        "[berth-webhook-latency] %s: n=%d p50=%d ms p95=%d ms max=%d ms; %s",
        what,
        sorted.size(),
        sorted.get(sorted.size() / 2),
        sorted.get((int) (sorted.size() * 0.95)),
        sorted.get(sorted.size() - 1),
        cluster.handlerTimes().summary());
  }

  @Test
  void fiftyJobCreationsThroughTheApiServer() throws Exception {
    KubernetesClient user = burstClient();
    List<Callable<Void>> tasks =
        IntStream.range(0, CONCURRENT)
            .mapToObj(
                i ->
                    (Callable<Void>)
                        () -> {
                          user.resource(
                                  Serialization.unmarshal(
                                      """
          apiVersion: batch/v1
          kind: Job
          metadata: {name: burst-%d, namespace: %s, labels: {berth.dev/queue-name: team-a}}
          spec:
            template:
              spec:
                restartPolicy: Never
                containers: [{name: main, image: busybox}]
          """
                                          .formatted(i, NS),
                                      GenericKubernetesResource.class))
                              .create();
                          return null;
                        })
            .collect(Collectors.toList());
    List<Long> latencies = runTogether(tasks);
    System.out.println(
        summary(
            "50 concurrent managed Job creates via kube-apiserver (mutate+validate)", latencies));
    assertAnsweredInTime(latencies);
    assertThat(user.batch().v1().jobs().inNamespace(NS).list().getItems())
        .hasSize(CONCURRENT)
        .allSatisfy(j -> assertThat(j.getSpec().getSuspend()).isTrue());
  }

  @Test
  void fiftyRejectionsThroughTheApiServer() throws Exception {
    KubernetesClient user = burstClient();
    List<Callable<Void>> tasks =
        IntStream.range(0, CONCURRENT)
            .mapToObj(
                i ->
                    (Callable<Void>)
                        () -> {
                          try {
                            user.resource(
                                    Serialization.unmarshal(
                                        """
            apiVersion: berth.dev/v1beta1
            kind: ClusterQueue
            metadata: {name: burst-%d}
            spec: {namespaceSelector: {matchExpressions: [{key: a, operator: Is}]}}
            """
                                            .formatted(i),
                                        GenericKubernetesResource.class))
                                .create();
                            throw new AssertionError("burst-" + i + " was accepted");
                          } catch (KubernetesClientException e) {
                            assertThat(e.getMessage()).contains("denied the request");
                          }
                          return null;
                        })
            .collect(Collectors.toList());
    List<Long> latencies = runTogether(tasks);
    System.out.println(
        summary("50 concurrent invalid ClusterQueue creates via kube-apiserver", latencies));
    assertAnsweredInTime(latencies);
  }

  @Test
  void fiftyLargeReviewsStraightAtTheWebhook() throws Exception {
    HttpClient http = WebhookFuzzIT.client(cluster);
    String podSets =
        IntStream.range(0, 18)
            .mapToObj(
                i ->
                    """
        {"name":"ps%d","count":4,"minCount":%s,"template":{"spec":{"containers":[
        {"name":"c","image":"i","resources":{"requests":{"cpu":"1","memory":"1Gi"}}}]}}}"""
                        .formatted(i, i == 0 ? "1" : "null"))
            .collect(Collectors.joining(","));
    String workload =
        "{\"apiVersion\":\"berth.dev/v1beta1\",\"kind\":\"Workload\","
            + "\"metadata\":{\"name\":\"w\",\"namespace\":\"n\"},\"spec\":{\"podSets\":["
            + podSets
            + "]}}";
    String review =
        """
        {"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u",
        "kind":{"group":"berth.dev","version":"v1beta1","kind":"Workload"},"operation":"UPDATE",
        "userInfo":{"username":"alice"},"object":%s,"oldObject":%s}}"""
            .formatted(workload, workload);
    URI uri =
        URI.create("https://127.0.0.1:" + cluster.webhookPort() + WebhookPaths.VALIDATE_WORKLOAD);
    List<Callable<Void>> tasks =
        IntStream.range(0, CONCURRENT)
            .mapToObj(
                i ->
                    (Callable<Void>)
                        () -> {
                          HttpResponse<String> response =
                              http.send(
                                  HttpRequest.newBuilder(uri)
                                      .timeout(Duration.ofSeconds(10))
                                      .POST(HttpRequest.BodyPublishers.ofString(review))
                                      .build(),
                                  HttpResponse.BodyHandlers.ofString());
                          assertThat(response.statusCode()).isEqualTo(200);
                          assertThat(response.body()).contains("\"allowed\":true");
                          return null;
                        })
            .collect(Collectors.toList());
    List<Long> latencies = runTogether(tasks);
    System.out.println(
        summary(
            "50 concurrent 18-podSet Workload UPDATE reviews, direct HTTPS (new TLS connections)",
            latencies));
    assertThat(latencies).allSatisfy(ms -> assertThat(ms).isLessThan(10_000));
  }
}
