package dev.berth.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.berth.api.v1beta1.Berth;
import dev.berth.e2e.Processes.Run;
import dev.berth.e2e.plane.ControlPlane;
import dev.berth.e2e.plane.KueueManager;
import dev.berth.local.LoopbackWebhooks;
import dev.berth.operator.BerthOperator;
import dev.berth.webhook.WebhookRuntime;
import io.fabric8.kubernetes.api.model.Config;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Issue 46, point 7: docs/migrating-from-kueue.md walked through on the whole control plane. The
 * real Kueue v0.17.0 ({@link KueueManager}) runs {@code team-a} and {@code team-b}, each a
 * ClusterQueue of 16 GPUs, while a team member keeps submitting Kueue-labelled Jobs to both; {@code
 * team-b} is moved to Berth by the page's steps (its YAML applied, its {@code helm} values rendered
 * into Berth's webhooks, its {@code kubectl} and {@code kubectl berth} commands run as written).
 * {@link MigrationLedger} watches every Job, pod and Workload of both controllers throughout. In
 * the end every Job has completed, each of its pods was started once, it was unsuspended once and
 * admitted by one controller; Kueue ran {@code team-b}'s Jobs before the move and Berth after it,
 * including the Jobs handed over while queued in Kueue; and neither controller's admitted GPUs nor
 * a namespace's running pods' ever went over 16.
 */
class KueueMigrationE2EIT {
  private static final String A = "team-a";
  private static final String B = "team-b";
  private static final int QUOTA = 16;
  private static final String OPERATOR = "kubeapitest";
  private static final String MEMBER = "team-member";
  private static final String PLATFORM_ADMIN = "platform-admin";
  private static final Pattern LABELLED = Pattern.compile("job\\.batch/(\\S+) labeled");

  private static MigrationGuide guide;
  private static ControlPlane plane;
  private static KueueManager kueue;
  private static WebhookRuntime webhooks;
  private static BerthOperator operator;
  private static MigrationLedger ledger;
  private static KubernetesClient member;
  private static Path home;

  @BeforeAll
  static void setUp() throws Exception {
    guide = MigrationGuide.read();
    plane = ControlPlane.start("kueue-migration", ControlPlane.gpuFleet());
    KubernetesClient admin = plane.client();
    for (String ns : List.of("berth-system", A, B)) {
      Namespaces.ensure(admin, ns);
    }
    // The page's Kueue Configuration (step 1 of "Once") from the start: the cluster's Kueue
    // restarted with it, no namespace labelled yet.
    kueue = KueueManager.start(plane, guide.yaml("managedJobsNamespaceSelector"));
    for (String team : List.of(A, B)) {
      kueueQueues(admin, team);
    }
    webhooks = berthWebhooks(MigrationGuide.helmValues(guide.sh("helm install berth"), Map.of()));
    operator = RunningOperator.startNew(plane.kubeconfig(), false);
    ledger = new MigrationLedger(admin, Set.of(A, B));
    member = new KubernetesClientBuilder().withConfig(as(MEMBER)).build();
    home = Files.createTempDirectory("berth-kueue-migration");
    Files.writeString(home.resolve("kubeconfig"), kubeconfigAs(PLATFORM_ADMIN));
    KubectlBerthPlugin.installIn(home.resolve("bin"));
    // Both controllers' webhooks answer through the API server: Kueue suspends a Job with its
    // label, Berth's defaulting webhook writes a ClusterQueue's stopPolicy.
    await()
        .atMost(Duration.ofSeconds(60))
        .ignoreExceptions()
        .until(
            () ->
                Boolean.TRUE.equals(
                    member.resource(job(A, "probe", 1)).dryRun().create().getSpec().getSuspend()));
    await()
        .atMost(Duration.ofSeconds(30))
        .ignoreExceptions()
        .until(
            () ->
                admin
                        .resource(ScenarioObjects.clusterQueue("probe", "probe", "cpu", "1"))
                        .dryRun()
                        .create()
                        .getSpec()
                        .stopPolicy
                    != null);
  }

  @AfterAll
  static void tearDown() {
    for (AutoCloseable c : new AutoCloseable[] {ledger, member, operator, webhooks, kueue, plane}) {
      if (c != null) {
        try {
          c.close();
        } catch (Exception e) {
          System.err.println("berth-test: stopping " + c + ": " + e);
        }
      }
    }
  }

  @Test
  void teamBMovesFromKueueToBerthWhileJobsKeepArriving() throws Exception {
    try (Submitter submitter = new Submitter()) {
      // Kueue runs both namespaces: some of team-b's Jobs admitted by it and running.
      await()
          .atMost(Duration.ofSeconds(60))
          .until(
              () -> runBy(B, MigrationLedger.KUEUE) >= 2 && runBy(A, MigrationLedger.KUEUE) >= 1);

      // 1. Berth's queues, converted from Kueue's, applied held.
      Run converted = sh(guide.sh("kubectl berth convert"));
      assertThat(converted.code()).as(converted.err()).isZero();
      assertThat(Files.readString(home.resolve("team-b-berth.yaml")))
          .contains("apiVersion: berth.dev/v1beta1")
          .contains("kind: ResourceFlavor")
          .contains("kind: ClusterQueue")
          .contains("kind: LocalQueue");
      Files.writeString(home.resolve("team-b-held.yaml"), guide.yaml("kind: ClusterQueue"));
      assertSucceeds(sh("kubectl apply -f team-b-held.yaml"));
      // 2. Kueue's LocalQueue held; Jobs then wait in it, suspended.
      assertSucceeds(sh(guide.sh("\"stopPolicy\":\"Hold\"")));
      int atHold = submitter.submitted(B);
      await().atMost(Duration.ofSeconds(10)).until(() -> submitter.submitted(B) > atHold);
      // 3. Berth's webhooks see team-b: a helm upgrade, the new configurations registered before
      // the old server stops, as a rolling upgrade keeps one replica answering.
      WebhookRuntime before = webhooks;
      webhooks =
          berthWebhooks(
              MigrationGuide.helmValues(
                  guide.sh("kueue-system,team-a}"),
                  MigrationGuide.helmValues(guide.sh("helm install berth"), Map.of())));
      await()
          .atMost(Duration.ofSeconds(30))
          .ignoreExceptions()
          .until(
              () ->
                  member
                      .resource(job(B, "probe", 1))
                      .dryRun()
                      .create()
                      .getMetadata()
                      .getLabels()
                      .containsKey(Berth.QUEUE_NAME_LABEL));
      before.close();
      // 4. Kueue's admitted Jobs in team-b finish.
      assertSucceeds(sh(guide.sh("kubectl wait")));
      // 5. The namespace handed over, then the Jobs still queued in Kueue.
      Run handOver = sh(guide.sh("kubectl label namespace team-b"));
      assertSucceeds(handOver);
      List<String> handedOver = new ArrayList<>();
      Matcher m = LABELLED.matcher(handOver.out());
      while (m.find()) {
        handedOver.add(m.group(1));
      }
      // 6. Berth admits.
      assertSucceeds(sh(guide.sh("kubectl berth resume")));
      await()
          .atMost(Duration.ofSeconds(60))
          .until(() -> runBy(B, MigrationLedger.BERTH) > handedOver.size());
      submitter.close();

      // 7. The page's checks.
      Run check = sh(guide.sh("kubectl berth list workloads"));
      assertSucceeds(check);
      assertThat(check.out()).contains("user-queue").contains("team-b");
      await()
          .atMost(Duration.ofSeconds(120))
          .untilAsserted(
              () ->
                  assertThat(unfinished())
                      .as("Jobs not completed (logs in %s)", plane.logDir())
                      .isEmpty());
      assertSucceeds(sh(guide.sh("kubectl delete localqueues.kueue.x-k8s.io")));

      assertThat(handedOver)
          .as("Jobs queued in Kueue when team-b moved, labelled for Berth in step 5")
          .isNotEmpty()
          .allSatisfy(
              name ->
                  assertThat(kueueWorkloadOwners(B))
                      .as("Jobs of team-b Kueue made a Workload for")
                      .contains(name));
      for (String ns : List.of(A, B)) {
        for (Job job : plane.client().batch().v1().jobs().inNamespace(ns).list().getItems()) {
          String name = ns + "/" + job.getMetadata().getName();
          assertThat(ledger.unsuspends(job)).as("%s unsuspended", name).isEqualTo(1);
          assertThat(ledger.pods(job))
              .as("%s's pods, each started once", name)
              .hasSize(job.getSpec().getParallelism());
          assertThat(ledger.admittedBy(job)).as("%s admitted by", name).hasSize(1);
          if (ns.equals(A)) {
            assertThat(ledger.admittedBy(job)).as(name).containsExactly(MigrationLedger.KUEUE);
          }
          if (ns.equals(B) && handedOver.contains(job.getMetadata().getName())) {
            assertThat(ledger.admittedBy(job)).as(name).containsExactly(MigrationLedger.BERTH);
          }
        }
      }
      assertThat(ledger.maxAdmitted())
          .as("most GPUs ever admitted at once, per controller/ClusterQueue")
          .containsOnlyKeys("kueue/team-a", "kueue/team-b", "berth/team-b")
          .allSatisfy((queue, gpus) -> assertThat(gpus).as(queue).isBetween(8, QUOTA));
      assertThat(ledger.maxRunning())
          .as("most GPUs ever held at once by running pods, per namespace")
          .containsOnlyKeys(A, B)
          .allSatisfy((ns, gpus) -> assertThat(gpus).as(ns).isBetween(8, QUOTA));
      System.out.printf(
          "[berth-test] migration: %d Jobs (%d submissions refused and retried), %d handed over;"
              + " GPUs admitted at most %s, running at most %s%n",
          submitter.created.get(),
          submitter.retried.get(),
          handedOver.size(),
          ledger.maxAdmitted(),
          ledger.maxRunning());
    }
  }

  /** Jobs of {@code ns} one controller admitted, counted from the ledger. */
  private static long runBy(String ns, String controller) {
    return plane.client().batch().v1().jobs().inNamespace(ns).list().getItems().stream()
        .filter(j -> ledger.admittedBy(j).contains(controller))
        .count();
  }

  /** The names of the Jobs that own a Kueue Workload in {@code ns}. */
  private static List<String> kueueWorkloadOwners(String ns) {
    return plane
        .client()
        .genericKubernetesResources("kueue.x-k8s.io/v1beta2", "Workload")
        .inNamespace(ns)
        .list()
        .getItems()
        .stream()
        .flatMap(w -> w.getMetadata().getOwnerReferences().stream())
        .map(o -> o.getName())
        .toList();
  }

  private static List<String> unfinished() {
    List<String> open = new ArrayList<>();
    for (String ns : List.of(A, B)) {
      for (Job job : plane.client().batch().v1().jobs().inNamespace(ns).list().getItems()) {
        boolean complete =
            job.getStatus() != null
                && job.getStatus().getConditions() != null
                && job.getStatus().getConditions().stream()
                    .anyMatch(c -> "Complete".equals(c.getType()) && "True".equals(c.getStatus()));
        if (!complete) {
          open.add(ns + "/" + job.getMetadata().getName());
        }
      }
    }
    return open;
  }

  /**
   * The team's Job as written for Kueue: its queue label only, {@code pods} pods of 8 GPUs that run
   * for 1 s.
   */
  private static Job job(String ns, String name, int pods) {
    return Serialization.unmarshal(
        """
        apiVersion: batch/v1
        kind: Job
        metadata:
          name: %s
          namespace: %s
          labels: {kueue.x-k8s.io/queue-name: user-queue}
        spec:
          parallelism: %d
          completions: %d
          backoffLimit: 0
          template:
            metadata:
              annotations: {%s: 1s}
            spec:
              restartPolicy: Never
              terminationGracePeriodSeconds: 0
              containers:
              - name: train
                image: trainer
                resources: {limits: {nvidia.com/gpu: "8"}}
        """
            .formatted(name, ns, pods, pods, ControlPlane.RUN_FOR),
        Job.class);
  }

  /** The cluster's Kueue objects for a team: a ClusterQueue of 16 GPUs and its LocalQueue. */
  private static void kueueQueues(KubernetesClient admin, String team) {
    String yaml =
        """
        apiVersion: kueue.x-k8s.io/v1beta2
        kind: ResourceFlavor
        metadata: {name: default-flavor}
        ---
        apiVersion: kueue.x-k8s.io/v1beta2
        kind: ClusterQueue
        metadata: {name: %s}
        spec:
          namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: %s}}
          resourceGroups:
          - coveredResources: [nvidia.com/gpu]
            flavors:
            - name: default-flavor
              resources:
              - {name: nvidia.com/gpu, nominalQuota: %d}
        ---
        apiVersion: kueue.x-k8s.io/v1beta2
        kind: LocalQueue
        metadata: {name: user-queue, namespace: %s}
        spec: {clusterQueue: %s}
        """
            .formatted(team, team, QUOTA, team, team);
    for (String doc : yaml.split("---\n")) {
      admin
          .resource(Serialization.unmarshal(doc, GenericKubernetesResource.class))
          .serverSideApply();
    }
  }

  /** Berth's chart webhooks rendered with these {@code --set} values, on a port of their own. */
  private static WebhookRuntime berthWebhooks(Map<String, String> values) throws IOException {
    int port;
    try (ServerSocket socket = new ServerSocket(0)) {
      port = socket.getLocalPort();
    }
    return LoopbackWebhooks.start(
        plane.client(), OPERATOR, port, values.values().toArray(String[]::new));
  }

  /** The page's commands, run by bash as the platform admin, in {@code home}. */
  private static Run sh(String script) throws IOException, InterruptedException {
    ProcessBuilder pb = new ProcessBuilder("bash", "-euo", "pipefail", "-c", script);
    pb.directory(home.toFile());
    pb.environment()
        .put(
            "PATH",
            home.resolve("bin")
                + ":"
                + Processes.kubectlDir()
                + ":"
                + System.getenv().getOrDefault("PATH", "/usr/bin:/bin"));
    pb.environment().put("KUBECONFIG", home.resolve("kubeconfig").toString());
    return Processes.run(pb, home);
  }

  private static void assertSucceeds(Run run) {
    assertThat(run.code()).as("exit code; stdout:%n%s%nstderr:%n%s", run.out(), run.err()).isZero();
  }

  /** The plane's kubeconfig, its user impersonating {@code user} of group system:masters. */
  private static String kubeconfigAs(String user) {
    Config config = Serialization.unmarshal(plane.kubeconfig(), Config.class);
    config.getUsers().get(0).getUser().setAs(user);
    config.getUsers().get(0).getUser().setAsGroups(List.of("system:masters"));
    return Serialization.asYaml(config);
  }

  private static io.fabric8.kubernetes.client.Config as(String user) {
    io.fabric8.kubernetes.client.Config config =
        io.fabric8.kubernetes.client.Config.fromKubeconfig(plane.kubeconfig());
    config.setImpersonateUsername(user);
    config.setImpersonateGroups("system:masters");
    return config;
  }

  /**
   * The team member submitting Kueue-labelled Jobs, alternately to each namespace, one a second, of
   * 1, 2, 1, ... pods: each namespace asks for less than its 16 GPUs on average (with the Job
   * controller's and the scheduler's delays, about half), so the queues stay short until Kueue's is
   * held. A submission refused while Berth's webhook configurations are replaced (step 3) is sent
   * again, as a CI runner retries.
   */
  private static final class Submitter implements AutoCloseable {
    final AtomicInteger created = new AtomicInteger();
    final AtomicInteger retried = new AtomicInteger();
    private final Map<String, AtomicInteger> next = new ConcurrentHashMap<>();
    private final ScheduledExecutorService pace = Executors.newSingleThreadScheduledExecutor();
    private boolean stopped;

    Submitter() {
      pace.scheduleAtFixedRate(this::submit, 0, 1, TimeUnit.SECONDS);
    }

    private void submit() {
      int n = created.get();
      String ns = n % 2 == 0 ? A : B;
      int i = next.computeIfAbsent(ns, k -> new AtomicInteger()).get();
      try {
        member
            .resource(job(ns, ns.substring(ns.length() - 1) + String.format("-%03d", i), 1 + i % 2))
            .create();
      } catch (KubernetesClientException refused) {
        if (refused.getCode() != 409) { // 409: created, though the answer was lost
          retried.incrementAndGet();
          return;
        }
      }
      next.get(ns).incrementAndGet();
      created.incrementAndGet();
    }

    /** Jobs submitted to {@code ns} so far. */
    int submitted(String ns) {
      return next.computeIfAbsent(ns, k -> new AtomicInteger()).get();
    }

    @Override
    public synchronized void close() throws InterruptedException {
      if (!stopped) {
        stopped = true;
        pace.shutdown();
        assertThat(pace.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
      }
    }
  }
}
