package dev.berth.bench.webhook;

import dev.berth.api.v1beta1.Berth;
import dev.berth.local.EmbeddedApiServer;
import dev.berth.webhook.ChartWebhooks;
import dev.berth.webhook.mutation.InformerLocalQueueLookup;
import dev.berth.webhook.server.AsyncHttpsServer;
import dev.berth.webhook.server.BerthWebhooks;
import dev.berth.webhook.server.WebhookPaths;
import dev.berth.webhook.server.WebhookServer;
import dev.berth.webhook.tls.CertificateAuthority;
import dev.berth.webhook.tls.ServingKeyManager;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import org.awaitility.Awaitility;

/**
 * The webhook under load: N AdmissionReviews at once, straight at the webhook (HTTPS, as the API
 * server sends them) and through a real kube-apiserver (dry-run Job creates, so the mutating and
 * validating webhooks both run and etcd stays small), while other processes keep every core busy.
 * Prints p50 / p99 / max latency and the errors per concurrency level.
 *
 * <p>Run: {@code java -cp benchmarks/target/benchmarks.jar
 * dev.berth.bench.webhook.WebhookLoadBenchmark [--levels 50,200,500] [--rounds 4] [--load-processes
 * N] [--kind job|pod]} (default: one busy process per core), from the checkout's root: the webhooks
 * are registered as the chart registers them ({@link ChartWebhooks}, which needs
 * scripts/helm-binary.sh run once).
 *
 * <p>{@code --kind pod} sends plain Pods instead of Jobs: labelled, asking for a GPU, in a
 * namespace a ClusterQueue selects and covers the GPU of, so every create passes the pod
 * integration's gate (mpod-admission) and the pod queue rule (vpod-queue), the two webhooks that
 * see every pod created in a managed namespace. Each row also gives the CPU this JVM spent per
 * request (the webhook server and the benchmark's own clients, which run in it).
 */
public final class WebhookLoadBenchmark {
  private static final String NS = "bench-webhook";
  private static final String OPERATOR = "system:serviceaccount:berth-system:berth";

  private WebhookLoadBenchmark() {}

  public static void main(String[] args) throws Exception {
    int[] levels = parseLevels(option(args, "--levels", "50,200,500"));
    int rounds = Integer.parseInt(option(args, "--rounds", "4"));
    boolean pods =
        switch (option(args, "--kind", "job")) {
          case "job" -> false;
          case "pod" -> true;
          default -> throw new IllegalArgumentException("--kind: job or pod");
        };
    int loaders =
        Integer.parseInt(
            option(
                args,
                "--load-processes",
                String.valueOf(Runtime.getRuntime().availableProcessors())));

    CertificateAuthority ca = CertificateAuthority.generate("bench-ca", Duration.ofDays(1));
    ServingKeyManager keys =
        new ServingKeyManager(
            ca.issue(List.of("localhost"), List.of("127.0.0.1"), Duration.ofDays(1)));
    EmbeddedApiServer apiServer = EmbeddedApiServer.start();
    apiServer.install(EmbeddedApiServer.berthCrds());
    KubernetesClient admin = apiServer.client();
    // The production lookup: informer caches of Namespaces, ClusterQueues and LocalQueues.
    InformerLocalQueueLookup scope = new InformerLocalQueueLookup(admin);
    List<Process> load = new ArrayList<>();
    ExecutorService pool = Executors.newCachedThreadPool();
    try {
      admin
          .namespaces()
          .resource(new NamespaceBuilder().withNewMetadata().withName(NS).endMetadata().build())
          .serverSideApply();
      if (pods) {
        managed(admin);
      }
      KubernetesClient user = userClient(apiServer.kubeconfig(), levels);
      load = CpuLoad.start(loaders);
      System.out.printf(
          "%d load processes busy; machine: %d cores; load average %s%n",
          loaders, Runtime.getRuntime().availableProcessors(), loadAverage());
      System.out.printf("kind: %s%n", pods ? "pod" : "job");
      System.out.println(
          "| server | path | concurrent | requests | p50 ms | p99 ms | max ms | errors"
              + " | CPU ms per request |");
      System.out.println("|---|---|---|---|---|---|---|---|---|");
      // The same server with and without HTTP/2, one after the other in one run: the API server
      // is re-pointed at each (its webhook client negotiates HTTP/2 when offered).
      for (boolean http2 : new boolean[] {false, true}) {
        WebhookServer server =
            new WebhookServer(
                BerthWebhooks.routes(OPERATOR, scope),
                keys,
                AsyncHttpsServer.Limits.withThreads(16).withHttp2(http2));
        int port = server.start("127.0.0.1", 0);
        HttpClient direct = trusting(ca, http2);
        try {
          register(admin, ca, port);
          awaitWebhooks(user, pods);
          String variant = http2 ? "HTTP/2 + HTTP/1.1" : "HTTP/1.1 only";
          // One unmeasured round first: the table is about serving, not the JIT's first pass.
          run(null, levels[0], 1, pool, i -> () -> direct(direct, port, i, pods));
          run(null, levels[0], 1, pool, i -> () -> throughApiServer(user, i, pods));
          for (int level : levels) {
            run(
                variant + " | straight at the webhook",
                level,
                rounds,
                pool,
                i -> () -> direct(direct, port, i, pods));
            run(
                variant + " | through kube-apiserver",
                level,
                rounds,
                pool,
                i -> () -> throughApiServer(user, i, pods));
          }
        } finally {
          server.stop();
        }
      }
      System.out.printf("load average at the end: %s%n", loadAverage());
    } finally {
      pool.shutdownNow();
      CpuLoad.stop(load);
      scope.close();
      apiServer.close();
    }
  }

  /** One request; returns the error text, or null when it was answered as expected. */
  @FunctionalInterface
  interface Call {
    String run() throws Exception;
  }

  private static void run(
      String path, int level, int rounds, ExecutorService pool, IntFunction<Call> calls)
      throws Exception {
    Sample sample = new Sample();
    long cpuBefore = processCpuNanos();
    for (int round = 0; round < rounds; round++) {
      java.util.concurrent.CountDownLatch gate = new java.util.concurrent.CountDownLatch(1);
      List<Future<?>> futures = new ArrayList<>();
      for (int i = 0; i < level; i++) {
        Call call = calls.apply(round * level + i);
        futures.add(
            pool.submit(
                () -> {
                  gate.await();
                  long start = System.nanoTime();
                  String error;
                  try {
                    error = call.run();
                  } catch (Exception e) {
                    error = e.getClass().getSimpleName() + ": " + e.getMessage();
                  }
                  sample.record(System.nanoTime() - start, error);
                  return null;
                }));
      }
      gate.countDown();
      for (Future<?> f : futures) {
        f.get(120, TimeUnit.SECONDS);
      }
    }
    if (path != null) {
      System.out.println(sample.row(path, level, processCpuNanos() - cpuBefore));
    }
  }

  /** This JVM's CPU time: the webhook server's threads and the benchmark's clients. */
  private static long processCpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean)
            java.lang.management.ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }

  private static String direct(HttpClient client, int port, int i, boolean pods) throws Exception {
    boolean mutate = i % 2 == 0;
    String review =
        """
        {"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{
          "uid":"u-%d","kind":%s,"resource":%s,
          "operation":"CREATE","namespace":"%s","name":"bench-%d",
          "userInfo":{"username":"alice"},"object":%s,"oldObject":null}}
        """
            .formatted(
                i,
                pods
                    ? "{\"group\":\"\",\"version\":\"v1\",\"kind\":\"Pod\"}"
                    : "{\"group\":\"batch\",\"version\":\"v1\",\"kind\":\"Job\"}",
                pods
                    ? "{\"group\":\"\",\"version\":\"v1\",\"resource\":\"pods\"}"
                    : "{\"group\":\"batch\",\"version\":\"v1\",\"resource\":\"jobs\"}",
                NS,
                i,
                // The validating webhook sees the pod as the mutating one left it: gated, marked.
                io.fabric8.kubernetes.client.utils.Serialization.asJson(
                    pods ? (mutate ? pod(i) : gated(pod(i))) : job(i)));
    String path =
        pods
            ? (mutate ? WebhookPaths.MUTATE_POD : WebhookPaths.VALIDATE_POD)
            : (mutate ? WebhookPaths.MUTATE_JOB : WebhookPaths.VALIDATE_JOB);
    HttpResponse<String> response =
        client.send(
            HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(30))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(review))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() != 200 || !response.body().contains("\"allowed\":true")) {
      return "HTTP " + response.statusCode() + ": " + response.body();
    }
    return null;
  }

  private static String throughApiServer(KubernetesClient user, int i, boolean pods) {
    if (pods) {
      try {
        Pod created = user.pods().inNamespace(NS).resource(pod(i)).dryRun().create();
        return created.getSpec().getSchedulingGates().stream()
                .anyMatch(g -> g.getName().equals(Berth.ADMISSION_SCHEDULING_GATE))
            ? null
            : "stored ungated (mutating webhook not applied)";
      } catch (KubernetesClientException e) {
        return refused(e);
      }
    }
    try {
      Job created = user.batch().v1().jobs().inNamespace(NS).resource(job(i)).dryRun().create();
      return Boolean.TRUE.equals(created.getSpec().getSuspend())
          ? null
          : "stored unsuspended (mutating webhook not applied)";
    } catch (KubernetesClientException e) {
      return refused(e);
    }
  }

  /** The refusal's code and message, and its cause where the client failed (code -1). */
  private static String refused(KubernetesClientException e) {
    return "HTTP "
        + e.getCode()
        + ": "
        + e.getMessage()
        + (e.getCause() == null ? "" : " (" + e.getCause() + ")");
  }

  private static Job job(int i) {
    return new JobBuilder()
        .withNewMetadata()
        .withName("bench-" + i)
        .withNamespace(NS)
        .addToLabels("berth.dev/queue-name", "team")
        .endMetadata()
        .withNewSpec()
        .withSuspend(true)
        .withParallelism(1)
        .withNewTemplate()
        .withNewSpec()
        .withRestartPolicy("Never")
        .addNewContainer()
        .withName("main")
        .withImage("busybox")
        .endContainer()
        .endSpec()
        .endTemplate()
        .endSpec()
        .build();
  }

  /** A plain Pod a team member creates: labelled for a LocalQueue, asking for one GPU. */
  private static Pod pod(int i) {
    return new PodBuilder()
        .withNewMetadata()
        .withName("bench-pod-" + i)
        .withNamespace(NS)
        .addToLabels(Berth.QUEUE_NAME_LABEL, "team")
        .endMetadata()
        .withNewSpec()
        .withRestartPolicy("Never")
        .addNewContainer()
        .withName("main")
        .withImage("busybox")
        .withNewResources()
        .addToRequests("cpu", new Quantity("100m"))
        .addToLimits("nvidia.com/gpu", new Quantity("1"))
        .endResources()
        .endContainer()
        .endSpec()
        .build();
  }

  /** {@code pod} as the pod integration's mutating webhook leaves it. */
  private static Pod gated(Pod pod) {
    return new PodBuilder(pod)
        .editMetadata()
        .addToLabels(Berth.MANAGED_LABEL, "true")
        .endMetadata()
        .editSpec()
        .addNewSchedulingGate(Berth.ADMISSION_SCHEDULING_GATE)
        .endSpec()
        .build();
  }

  /**
   * Makes {@link #NS} a namespace Berth manages for GPUs: a ClusterQueue that selects it and covers
   * nvidia.com/gpu, and the LocalQueue "team" the pods name.
   */
  private static void managed(KubernetesClient admin) {
    String objects =
        """
        apiVersion: berth.dev/v1beta1
        kind: ResourceFlavor
        metadata: {name: bench-gpu}
        ---
        apiVersion: berth.dev/v1beta1
        kind: ClusterQueue
        metadata: {name: bench-team}
        spec:
          namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: NS}}
          resourceGroups:
          - coveredResources: [cpu, nvidia.com/gpu]
            flavors:
            - name: bench-gpu
              resources:
              - {name: cpu, nominalQuota: "64"}
              - {name: nvidia.com/gpu, nominalQuota: "8"}
        ---
        apiVersion: berth.dev/v1beta1
        kind: LocalQueue
        metadata: {name: team, namespace: NS}
        spec: {clusterQueue: bench-team}
        """
            .replace("NS", NS);
    admin
        .load(new java.io.ByteArrayInputStream(objects.getBytes(StandardCharsets.UTF_8)))
        .items()
        .forEach(o -> admin.resource(o).serverSideApply());
  }

  /** The chart's webhook configurations (its defaults), pointed at this server. */
  private static void register(KubernetesClient admin, CertificateAuthority ca, int port) {
    ChartWebhooks.render().onLoopback(port).withCaBundle(ca.certificatePem()).install(admin);
  }

  /**
   * The API server picks up webhook configurations asynchronously: wait until a Job is mutated by
   * the new server (the previous one is stopped, so calls still sent to it fail).
   */
  private static void awaitWebhooks(KubernetesClient user, boolean pods) {
    Awaitility.await("webhooks active")
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(200))
        .until(() -> throughApiServer(user, -1, pods) == null);
  }

  /** A user that is not the operator (the webhook treats it as a team member). */
  private static KubernetesClient userClient(String kubeconfig, int[] levels) {
    Config config = Config.fromKubeconfig(kubeconfig);
    config.setImpersonateUsername("alice");
    config.setImpersonateGroups("system:authenticated", "system:masters");
    config.setRequestTimeout(60_000);
    config.setRequestRetryBackoffLimit(0);
    // One connection per request in flight, as the figures of 1 December had: over HTTP/2 the
    // client multiplexes them onto one connection, and past the API server's streams per
    // connection it fails them itself ("too many concurrent streams"), before any webhook.
    config.setHttp2Disable(true);
    int max = 0;
    for (int level : levels) {
      max = Math.max(max, level);
    }
    config.setMaxConcurrentRequests(max);
    config.setMaxConcurrentRequestsPerHost(max);
    return new KubernetesClientBuilder().withConfig(config).build();
  }

  private static HttpClient trusting(CertificateAuthority ca, boolean http2) {
    return HttpClient.newBuilder()
        .sslContext(ca.trustingClientContext())
        .version(http2 ? HttpClient.Version.HTTP_2 : HttpClient.Version.HTTP_1_1)
        .connectTimeout(Duration.ofSeconds(30))
        .build();
  }

  private static String loadAverage() {
    try {
      return java.nio.file.Files.readString(java.nio.file.Path.of("/proc/loadavg")).trim();
    } catch (java.io.IOException e) {
      return "unknown";
    }
  }

  private static int[] parseLevels(String csv) {
    return java.util.Arrays.stream(csv.split(","))
        .map(String::trim)
        .mapToInt(Integer::parseInt)
        .toArray();
  }

  private static String option(String[] args, String name, String fallback) {
    for (int i = 0; i + 1 < args.length; i++) {
      if (args[i].equals(name)) {
        return args[i + 1];
      }
    }
    return fallback;
  }

  /** Latencies and errors of one path at one level. */
  private static final class Sample {
    private final List<Long> nanos = new ArrayList<>();
    private final List<String> errors = new ArrayList<>();

    synchronized void record(long elapsed, String error) {
      nanos.add(elapsed);
      if (error != null) {
        errors.add(error);
      }
    }

    synchronized String row(String path, int level, long cpuNanos) {
      List<Long> sorted = nanos.stream().sorted().toList();
      String row =
          String.format(
              Locale.ROOT,
              "| %s | %d | %d | %.1f | %.1f | %.1f | %d | %.2f |",
              path,
              level,
              sorted.size(),
              ms(sorted, 0.50),
              ms(sorted, 0.99),
              ms(sorted, 1.0),
              errors.size(),
              cpuNanos / 1e6 / Math.max(1, sorted.size()));
      if (!errors.isEmpty()) {
        row += "\n  first error: " + errors.get(0).lines().findFirst().orElse("");
      }
      return row;
    }

    private static double ms(List<Long> sorted, double quantile) {
      int index = (int) Math.min(sorted.size() - 1, Math.ceil(quantile * sorted.size()) - 1);
      return sorted.get(Math.max(0, index)) / 1e6;
    }
  }
}
