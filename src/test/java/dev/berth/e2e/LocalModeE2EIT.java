package dev.berth.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.berth.api.v1beta1.Berth;
import dev.berth.api.v1beta1.Workload;
import dev.berth.e2e.plane.ControllerBuilds;
import dev.berth.e2e.plane.JobSetStandIn;
import dev.berth.e2e.plane.KubeRay;
import dev.berth.e2e.plane.ThirdParty;
import dev.berth.local.ControllerManager;
import dev.berth.local.DraDriverStandIn;
import dev.berth.local.Kwok;
import dev.berth.local.LocalMode;
import dev.berth.operator.integration.ray.RayJob;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSchedulingGate;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Local mode as `./berth --local` starts it (LocalMode.start, on the same control-plane harness as
 * the suite), with samples/ applied and pods running 5 s: every sample Job really runs and
 * completes, and kubectl shows a Job Berth never admitted as Suspended, with no pods. Where local
 * mode has no JobSet controller (scripts/jobset-binary.sh needs ../shared/third-party; local mode
 * says so and admits JobSets that nothing runs), the suite's {@link JobSetStandIn} runs the sample
 * JobSet's child Jobs instead. The TrainJob and LWS samples run on the real Kubeflow Trainer and
 * LWS controller, which set-up builds first where ../shared/third-party is (local mode itself only
 * starts them when built).
 */
class LocalModeE2EIT {
  private static final Duration SAMPLES_TIMEOUT = Duration.ofSeconds(240);
  private static LocalMode.Running local;
  private static KubernetesClient admin;
  private static Path kubeconfig;
  private static JobSetStandIn jobSetStandIn;
  private static Path pluginBin;

  @BeforeAll
  static void setUp() throws Exception {
    Path work = Path.of("target/local-mode-it").toAbsolutePath();
    // Local mode never builds a controller; the suite does (KubeRay always, from the Go module
    // proxy; the Trainer and LWS where their sources are), so that the RayJob, TrainJob and LWS
    // samples run here whichever class of the suite ran first.
    KubeRay.ensureBuilt();
    ControllerBuilds.trainer();
    ControllerBuilds.leaderWorkerSet();
    local = LocalMode.start(LocalModeOptions.of(work).toArray(String[]::new), System.out);
    kubeconfig = local.adminKubeconfig();
    pluginBin = KubectlBerthPlugin.installIn(work.resolve("bin"));
    admin =
        new KubernetesClientBuilder()
            .withConfig(Config.fromKubeconfig(Files.readString(kubeconfig, StandardCharsets.UTF_8)))
            .build();
    if (!local.realJobSet()) {
      System.out.println(
          "[berth-test] local mode has no JobSet controller built: the sample JobSet runs with"
              + " the suite's stand-in, JobSetStandIn");
      jobSetStandIn = JobSetStandIn.start(admin);
    }
  }

  @AfterAll
  static void tearDown() {
    if (jobSetStandIn != null) {
      jobSetStandIn.close();
    }
    if (admin != null) {
      admin.close();
    }
    if (local != null) {
      local.close();
    }
  }

  /**
   * The printed dashboard link works as printed: HTTPS verified against the CA local mode wrote,
   * the page, and the state signed in with the token the link carries.
   */
  @Test
  void thePrintedDashboardLinkSignsTheAdminIn() throws Exception {
    String url = local.dashboardUrl();
    assertThat(url).startsWith("https://127.0.0.1:" + local.httpsPort() + "/dashboard/#token=");
    var page =
        dashboardClient()
            .send(
                java.net.http.HttpRequest.newBuilder(java.net.URI.create(dashboardBase())).build(),
                java.net.http.HttpResponse.BodyHandlers.ofString());
    assertThat(page.statusCode()).isEqualTo(200);
    assertThat(page.body()).contains("<h2 id=\"pending-h\"");
    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () ->
                assertThat(dashboardState())
                    .contains("system:serviceaccount:berth-system:local-admin")
                    .contains("\"name\" : \"team-llm\""));
  }

  /** The dashboard's page address, without the fragment that carries the token. */
  private static String dashboardBase() {
    String url = local.dashboardUrl();
    return url.substring(0, url.indexOf('#'));
  }

  /** HTTPS verified against the CA local mode wrote beside its kubeconfigs. */
  private static java.net.http.HttpClient dashboardClient() throws Exception {
    var ca =
        dev.berth.webhook.tls.CertificateAuthority.Pem.certificates(
            Files.readString(kubeconfig.resolveSibling("berth-ca.crt")))[0];
    var store = java.security.KeyStore.getInstance(java.security.KeyStore.getDefaultType());
    store.load(null, null);
    store.setCertificateEntry("berth-local", ca);
    var trust =
        javax.net.ssl.TrustManagerFactory.getInstance(
            javax.net.ssl.TrustManagerFactory.getDefaultAlgorithm());
    trust.init(store);
    var tls = javax.net.ssl.SSLContext.getInstance("TLS");
    tls.init(null, trust.getTrustManagers(), null);
    return java.net.http.HttpClient.newBuilder().sslContext(tls).build();
  }

  /** What the dashboard shows, signed in with the token the printed link carries. */
  private static String dashboardState() throws Exception {
    String url = local.dashboardUrl();
    String token =
        java.net.URLDecoder.decode(
            url.substring(url.indexOf("#token=") + 7), StandardCharsets.UTF_8);
    var state =
        dashboardClient()
            .send(
                java.net.http.HttpRequest.newBuilder(
                        java.net.URI.create(dashboardBase() + "api/v1/state"))
                    .header("Authorization", "Bearer " + token)
                    .build(),
                java.net.http.HttpResponse.BodyHandlers.ofString());
    assertThat(state.statusCode()).isEqualTo(200);
    return state.body();
  }

  @Test
  void everySampleJobRunsToCompletionOnTheControlPlane() {
    Map<String, String> jobs =
        Map.of(
            "llama-finetune",
            "team-llm",
            "resnet-sweep",
            "team-vision",
            "ablation-study",
            "team-research",
            "eval-small",
            "team-research");
    await()
        .atMost(SAMPLES_TIMEOUT)
        .untilAsserted(
            () ->
                jobs.forEach(
                    (name, ns) ->
                        assertThat(
                                condition(
                                    admin.batch().v1().jobs().inNamespace(ns).withName(name).get(),
                                    "Complete"))
                            .as("Job %s/%s Complete (Job controller)", ns, name)
                            .isTrue()));
    // Each ran as pods the Job controller made and KWOK ran, on the nodes of its flavor.
    assertThat(
            admin
                .pods()
                .inNamespace("team-vision")
                .withLabel("batch.kubernetes.io/job-name", "resnet-sweep")
                .list()
                .getItems())
        .filteredOn(p -> "Succeeded".equals(p.getStatus().getPhase()))
        .hasSize(32)
        .allSatisfy(p -> assertThat(p.getSpec().getNodeName()).startsWith("a100-n"));
    // The sample JobSet too: the JobSet controller's Completed condition, all three pods ran.
    await()
        .atMost(SAMPLES_TIMEOUT)
        .untilAsserted(
            () ->
                assertThat(jobSetCompleted())
                    .as(
                        "JobSet team-llm/llm-pretrain Completed (%s)",
                        local.realJobSet() ? "JobSet controller" : "JobSetStandIn")
                    .isTrue());
  }

  /**
   * samples/dra's Job, on the DRA pool local mode's stand-in driver publishes: Complete as applied;
   * then, since the claims made for a pod go when it ends, submitted again from the sample with
   * pods that run 20 s, to see what it gets while running: its Workload admitted with the mapped
   * resource charged (2 pods × 2 GPUs), each pod's claim allocated 2 devices of the dra pool's
   * slices by kube-scheduler, and the Job Complete again.
   */
  @Test
  void theDraSampleJobIsChargedAllocatedAndCompletes() throws IOException {
    String ns = "team-research";
    var jobs = admin.batch().v1().jobs().inNamespace(ns);
    await()
        .atMost(SAMPLES_TIMEOUT)
        .until(() -> condition(jobs.withName("dra-eval").get(), "Complete"));
    Job sample;
    try (var in =
        Files.newInputStream(
            Path.of(System.getProperty("berth.repo"), "samples/dra/14-job-dra-gpus.yaml"))) {
      sample =
          admin.load(in).items().stream()
              .filter(Job.class::isInstance)
              .map(Job.class::cast)
              .findFirst()
              .orElseThrow();
    }
    jobs.withName("dra-eval")
        .withPropagationPolicy(io.fabric8.kubernetes.api.model.DeletionPropagation.FOREGROUND)
        .delete();
    await().atMost(Duration.ofSeconds(60)).until(() -> jobs.withName("dra-eval").get() == null);
    sample
        .getSpec()
        .getTemplate()
        .setMetadata(
            new io.fabric8.kubernetes.api.model.ObjectMetaBuilder()
                .withAnnotations(Map.of(Kwok.RUN_FOR, "20s"))
                .build());
    String uid = jobs.resource(sample).create().getMetadata().getUid();

    var claims =
        admin
            .resources(io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim.class)
            .inNamespace(ns);
    await()
        .atMost(Duration.ofSeconds(120))
        .untilAsserted(
            () ->
                assertThat(claims.list().getItems())
                    .filteredOn(c -> c.getMetadata().getName().startsWith("dra-eval-"))
                    .hasSize(2)
                    .allSatisfy(
                        c -> {
                          assertThat(c.getStatus().getAllocation())
                              .as(c.getMetadata().getName() + " allocated")
                              .isNotNull();
                          assertThat(c.getStatus().getAllocation().getDevices().getResults())
                              .hasSize(2)
                              .allSatisfy(
                                  r -> {
                                    assertThat(r.getDriver()).isEqualTo(DraDriverStandIn.DRIVER);
                                    assertThat(r.getPool()).startsWith("dra-n");
                                  });
                        }));
    Workload workload =
        admin.resources(Workload.class).inNamespace(ns).list().getItems().stream()
            .filter(w -> w.getMetadata().getOwnerReferences().get(0).getUid().equals(uid))
            .findFirst()
            .orElseThrow();
    assertThat(workload.getStatus().admission.clusterQueue).isEqualTo("dra-gpus");
    var assignment = workload.getStatus().admission.podSetAssignments.get(0);
    assertThat(assignment.flavors).containsEntry(LocalMode.DRA_GPU, "dra-gpu");
    assertThat(assignment.resourceUsage).containsEntry(LocalMode.DRA_GPU, new Quantity("4"));
    await()
        .atMost(Duration.ofSeconds(120))
        .until(() -> condition(jobs.withName("dra-eval").get(), "Complete"));
  }

  /**
   * samples/21's RayJob on the real KubeRay operator: admitted whole, then Complete with its Ray
   * job SUCCEEDED (the stand-in Ray dashboard follows its submitter Job: docs/ray.md) and its
   * Workload Finished. It runs for seconds, maybe before this method starts, so its Running phase
   * is read from what KubeRay kept of it: KubeRay marks a RayJob Complete only from Running, and
   * copies its cluster's status into the RayJob while it runs (ready, both workers ready), which it
   * does not clear when the RayJob ends and deletes the cluster.
   */
  @Test
  void theRayJobSampleRunsToCompleteOnKubeRay() {
    assertThat(local.realKubeRay()).as("local mode runs KubeRay (built in setUp)").isTrue();
    await("RayJob team-vision/embeddings-backfill Complete")
        .atMost(SAMPLES_TIMEOUT)
        .until(() -> "Complete".equals(embeddingsBackfill().jobDeploymentStatus));
    RayJob.Status status = embeddingsBackfill();
    assertThat(status.jobStatus).isEqualTo("SUCCEEDED");
    assertThat(status.rayClusterStatus)
        .as("the cluster KubeRay ran it on, as it last saw it while the RayJob was Running")
        .containsEntry("state", "ready")
        .containsEntry("readyWorkerReplicas", 2);
    await("its Workload Finished, Succeeded")
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                admin
                    .resources(Workload.class)
                    .inNamespace("team-vision")
                    .list()
                    .getItems()
                    .stream()
                    .filter(
                        w -> w.getMetadata().getOwnerReferences().get(0).getKind().equals("RayJob"))
                    .filter(w -> w.getStatus() != null && w.getStatus().conditions != null)
                    .flatMap(w -> w.getStatus().conditions.stream())
                    .anyMatch(
                        c ->
                            c.type.equals("Finished")
                                && "True".equals(c.status)
                                && "Succeeded".equals(c.reason)));
  }

  private static RayJob.Status embeddingsBackfill() {
    RayJob job =
        admin
            .resources(RayJob.class)
            .inNamespace("team-vision")
            .withName("embeddings-backfill")
            .get();
    return job == null || job.getStatus() == null ? new RayJob.Status() : job.getStatus();
  }

  @Test
  void aJobBerthNeverAdmitsIsSuspendedInKubectlWithNoPods() throws Exception {
    // 8 pods of 8 H100s: more than team-llm can ever hold (24 GPUs, 8 more borrowed).
    Job huge = ScenarioObjects.job("team-llm", "too-big", "training", 8, "1");
    Map<String, Quantity> gpus = Map.of("nvidia.com/gpu", new Quantity("8"));
    huge.getSpec()
        .getTemplate()
        .getSpec()
        .getContainers()
        .get(0)
        .setResources(new ResourceRequirements(null, gpus, gpus));
    huge.getMetadata().getLabels().put(Berth.QUEUE_NAME_LABEL, "training");
    admin.resource(huge).create();
    // The Job controller's Suspended condition is what kubectl's STATUS column reads.
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                condition(
                    admin.batch().v1().jobs().inNamespace("team-llm").withName("too-big").get(),
                    "Suspended"));
    assertThat(kubectl("get", "job", "too-big", "-n", "team-llm", "-o", "wide", "--no-headers"))
        .as("kubectl's STATUS column")
        .startsWith("too-big")
        .contains(" Suspended ");
    assertThat(
            admin
                .pods()
                .inNamespace("team-llm")
                .withLabel("batch.kubernetes.io/job-name", "too-big")
                .list()
                .getItems())
        .isEmpty();
    admin.resource(huge).delete();
  }

  /**
   * The serving Deployment and the pod group of samples/ (30, 31) go through the queue: four of the
   * five inference pods run on the L4 pool and keep running (a server does not finish), the fifth
   * waits behind Berth's gate with the numbers of its wait, as {@code kubectl berth} and the
   * dashboard show it; the pod group runs whole, as one Workload, and finishes.
   */
  @Test
  void theServingDeploymentAndThePodGroupGoThroughTheQueue() throws Exception {
    String ns = "team-research";
    await()
        .atMost(SAMPLES_TIMEOUT)
        .untilAsserted(
            () -> {
              List<Pod> pods =
                  admin.pods().inNamespace(ns).withLabel("app", "chat-inference").list().getItems();
              assertThat(pods).hasSize(5);
              assertThat(pods)
                  .filteredOn(p -> "Running".equals(p.getStatus().getPhase()))
                  .hasSize(4)
                  .allSatisfy(p -> assertThat(p.getSpec().getNodeName()).startsWith("l4-shared-n"));
              assertThat(pods)
                  .filteredOn(p -> p.getSpec().getNodeName() == null)
                  .singleElement()
                  .satisfies(
                      p ->
                          assertThat(p.getSpec().getSchedulingGates())
                              .extracting(PodSchedulingGate::getName)
                              .contains("berth.dev/admission"));
            });
    Pod waiting =
        admin.pods().inNamespace(ns).withLabel("app", "chat-inference").list().getItems().stream()
            .filter(p -> p.getSpec().getNodeName() == null)
            .findFirst()
            .orElseThrow();
    String name = waiting.getMetadata().getName();
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () -> {
              var reserved = quotaReserved(ns, name);
              assertThat(reserved).isNotNull();
              assertThat(reserved.status).isEqualTo("False");
              assertThat(reserved.message).contains("nvidia.com/gpu.shared");
            });
    assertThat(kubectl("berth", "list", "workloads", "-n", ns, "--status", "pending"))
        .as("kubectl berth list workloads")
        .contains(name);
    assertThat(kubectl("berth", "why", name, "-n", ns))
        .as("kubectl berth why")
        .contains("nvidia.com/gpu.shared");
    assertThat(dashboardState()).as("the dashboard's state").contains(name);

    // The pod group: both pods ran and finished, under one Workload named after the group.
    await()
        .atMost(SAMPLES_TIMEOUT)
        .untilAsserted(
            () ->
                assertThat(
                        admin
                            .pods()
                            .inNamespace(ns)
                            .withLabel("berth.dev/pod-group-name", "eval-pair")
                            .list()
                            .getItems())
                    .hasSize(2)
                    .allSatisfy(
                        p -> {
                          assertThat(p.getStatus().getPhase()).isEqualTo("Succeeded");
                          assertThat(p.getSpec().getNodeName()).startsWith("a100-mig-n");
                        }));
    Workload group = admin.resources(Workload.class).inNamespace(ns).withName("eval-pair").get();
    assertThat(group).isNotNull();
    assertThat(group.getSpec().podSets)
        .singleElement()
        .satisfies(ps -> assertThat(ps.count).isEqualTo(2));
  }

  /**
   * The samples on their real controllers: samples/kubeflow's TrainJob is queued, admitted as one
   * Workload, run by Kubeflow Trainer as a JobSet whose two pods run at once, and ends Complete,
   * finishing its Workload; samples/leaderworkerset's two groups run, every pod Running. Where a
   * controller is not built (no ../shared/third-party, which setUp's builds need) the test says so
   * loudly and is aborted, never passed.
   */
  @Test
  void theTrainJobAndLeaderWorkerSetSamplesRunOnTheirRealControllers() {
    List<String> absent = new ArrayList<>();
    if (!local.realTrainer()) {
      absent.add("Kubeflow Trainer (scripts/trainer-binary.sh)");
    }
    if (!local.realLeaderWorkerSet()) {
      absent.add("the LeaderWorkerSet controller (scripts/lws-binary.sh)");
    }
    if (!absent.isEmpty()) {
      String why =
          "SKIPPED: local mode runs no "
              + String.join(" and no ", absent)
              + ": not built, as "
              + ThirdParty.dir()
              + " is absent; the TrainJob and LWS samples are NOT tested";
      System.out.println("[berth-test] " + "*".repeat(90));
      System.out.println("[berth-test] " + why);
      System.out.println("[berth-test] " + "*".repeat(90));
      assertThat(ThirdParty.present())
          .as("controllers missing although the third-party sources are there: " + absent)
          .isFalse();
      Assumptions.abort(why);
    }
    String ns = "team-llm";
    // Both pods of the TrainJob's JobSet Running at once, under its admitted Workload.
    await()
        .atMost(SAMPLES_TIMEOUT)
        .untilAsserted(
            () -> {
              assertThat(podsLabelled(ns, "jobset.sigs.k8s.io/jobset-name", "llm-finetune"))
                  .as("llm-finetune's pods")
                  .hasSize(2)
                  .allSatisfy(p -> assertThat(p.getStatus().getPhase()).isEqualTo("Running"));
              Workload workload = workloadOf(ns, "TrainJob", "llm-finetune");
              assertThat(workload.getStatus().admission.clusterQueue).isEqualTo(ns);
              assertThat(workload.getStatus().conditions)
                  .anySatisfy(c -> assertThat(c.type + "=" + c.status).isEqualTo("Admitted=True"));
            });
    // The LWS sample's two groups, a leader and a worker each, all Running (servers: they stay).
    await()
        .atMost(SAMPLES_TIMEOUT)
        .untilAsserted(
            () ->
                assertThat(podsLabelled(ns, "leaderworkerset.sigs.k8s.io/name", "llm-serving"))
                    .as("llm-serving's pods")
                    .hasSize(4)
                    .allSatisfy(p -> assertThat(p.getStatus().getPhase()).isEqualTo("Running")));
    // KWOK ends the TrainJob's pods after 5 s; the Trainer marks it Complete from its JobSet,
    // which finishes the Workload.
    await()
        .atMost(SAMPLES_TIMEOUT)
        .untilAsserted(
            () -> {
              var trainJob =
                  admin
                      .genericKubernetesResources("trainer.kubeflow.org/v1alpha1", "TrainJob")
                      .inNamespace(ns)
                      .withName("llm-finetune")
                      .get();
              assertThat(trainJob).isNotNull();
              assertThat(statusCondition(trainJob.getAdditionalProperties(), "Complete"))
                  .as("TrainJob llm-finetune Complete (Trainer)")
                  .isTrue();
              assertThat(workloadOf(ns, "TrainJob", "llm-finetune").getStatus().conditions)
                  .anySatisfy(
                      c ->
                          assertThat(c.type + "=" + c.status + " " + c.reason)
                              .isEqualTo("Finished=True Succeeded"));
            });
  }

  private static List<Pod> podsLabelled(String ns, String label, String value) {
    return admin.pods().inNamespace(ns).withLabel(label, value).list().getItems();
  }

  private static Workload workloadOf(String ns, String kind, String owner) {
    return admin.resources(Workload.class).inNamespace(ns).list().getItems().stream()
        .filter(
            w ->
                w.getMetadata().getOwnerReferences().stream()
                    .anyMatch(o -> kind.equals(o.getKind()) && owner.equals(o.getName())))
        .filter(w -> w.getStatus() != null && w.getStatus().conditions != null)
        .findFirst()
        .orElseThrow(() -> new AssertionError("no Workload of " + kind + " " + ns + "/" + owner));
  }

  /**
   * Kueue's getting-started, ported as the README says (apiVersion and label prefix; the
   * ClusterQueue selects one namespace instead of {@code {}}): its CPU-only sample Job runs to
   * completion on the untainted CPU pool, and its partial-admission sample (20 pods, at least 5, on
   * 9 cpu) waits for quota while the first Job holds 6, never ExceedsMaxQuota, then runs partially
   * and completes.
   */
  @Test
  void kueuesGettingStartedRunsToCompletion() throws Exception {
    String ns = "kueue-quickstart";
    Path yaml = Path.of("target/local-mode-it/kueue-quickstart.yaml").toAbsolutePath();
    Files.writeString(yaml, QUICKSTART.replace("NS", ns), StandardCharsets.UTF_8);
    kubectl("apply", "-f", yaml.toString());
    Files.writeString(yaml, sampleJob(ns, "sample-job", 6, null, "20s"), StandardCharsets.UTF_8);
    kubectl("create", "-f", yaml.toString());
    await().atMost(Duration.ofSeconds(60)).until(() -> running(ns, "sample-job") == 6);

    Files.writeString(yaml, sampleJob(ns, "partial-job", 20, "5", "5s"), StandardCharsets.UTF_8);
    kubectl("create", "-f", yaml.toString());
    // 3 cpu are free and at least 5 are needed: it waits for quota, with the numbers of its
    // smallest admissible form.
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () -> {
              var reserved = quotaReserved(ns, "partial-job");
              assertThat(reserved).isNotNull();
              assertThat(reserved.status).isEqualTo("False");
              assertThat(reserved.reason).isEqualTo("WaitingForQuota");
              assertThat(reserved.message).contains("needs cpu 5");
            });

    await()
        .atMost(SAMPLES_TIMEOUT)
        .untilAsserted(
            () -> {
              for (String name : List.of("sample-job", "partial-job")) {
                assertThat(
                        condition(
                            admin.batch().v1().jobs().inNamespace(ns).withName(name).get(),
                            "Complete"))
                    .as("Job %s/%s Complete", ns, name)
                    .isTrue();
              }
            });
    assertThat(admin.pods().inNamespace(ns).list().getItems())
        .isNotEmpty()
        .allSatisfy(p -> assertThat(p.getSpec().getNodeName()).startsWith("cpu-n"));
  }

  /** Kueue's single ClusterQueue set-up, ported; it selects only {@code NS}. */
  private static final String QUICKSTART =
      """
      apiVersion: v1
      kind: Namespace
      metadata:
        name: NS
      ---
      apiVersion: berth.dev/v1beta1
      kind: ResourceFlavor
      metadata:
        name: default-flavor
      ---
      apiVersion: berth.dev/v1beta1
      kind: ClusterQueue
      metadata:
        name: cluster-queue
      spec:
        namespaceSelector:
          matchLabels:
            kubernetes.io/metadata.name: NS
        resourceGroups:
        - coveredResources: ["cpu", "memory"]
          flavors:
          - name: default-flavor
            resources:
            - name: cpu
              nominalQuota: 9
            - name: memory
              nominalQuota: 36Gi
      ---
      apiVersion: berth.dev/v1beta1
      kind: LocalQueue
      metadata:
        namespace: NS
        name: user-queue
      spec:
        clusterQueue: cluster-queue
      """;

  /** Kueue's sample Job (and, with a minimum, its partial-admission sample), ported. */
  private static String sampleJob(String ns, String name, int pods, String min, String runFor) {
    return """
        apiVersion: batch/v1
        kind: Job
        metadata:
          name: %s
          namespace: %s
          labels:
            berth.dev/queue-name: user-queue
          annotations: {%s}
        spec:
          parallelism: %d
          completions: %d
          suspend: true
          template:
            metadata:
              annotations:
                kwok.berth.dev/run-for: %s
            spec:
              containers:
              - name: dummy-job
                image: gcr.io/k8s-staging-perf-tests/sleep:v0.1.0
                args: ["30s"]
                resources:
                  requests:
                    cpu: 1
                    memory: 200Mi
              restartPolicy: Never
        """
        .formatted(
            name,
            ns,
            min == null ? "" : "berth.dev/job-min-parallelism: \"" + min + "\"",
            pods,
            pods,
            runFor);
  }

  private static long running(String ns, String job) {
    return admin
        .pods()
        .inNamespace(ns)
        .withLabel("batch.kubernetes.io/job-name", job)
        .list()
        .getItems()
        .stream()
        .filter(p -> "Running".equals(p.getStatus().getPhase()))
        .count();
  }

  private static dev.berth.api.v1beta1.Condition quotaReserved(String ns, String job) {
    return admin.resources(Workload.class).inNamespace(ns).list().getItems().stream()
        .filter(w -> w.getMetadata().getOwnerReferences().get(0).getName().equals(job))
        .filter(w -> w.getStatus() != null && w.getStatus().conditions != null)
        .flatMap(w -> w.getStatus().conditions.stream())
        .filter(c -> c.type.equals("QuotaReserved"))
        .findFirst()
        .orElse(null);
  }

  private static String kubectl(String... args) throws IOException, InterruptedException {
    Path kubectl = ControllerManager.binary("kubectl");
    List<String> command = new ArrayList<>(List.of(kubectl.toString()));
    command.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
    // kubectl finds the plugin (kubectl berth) on its PATH, and passes no flag before a plugin's
    // name: the kubeconfig goes in the environment.
    pb.environment().put("PATH", pluginBin + ":" + System.getenv("PATH"));
    pb.environment().put("KUBECONFIG", kubeconfig.toString());
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as("kubectl: " + out).isZero();
    return out.replaceAll("\\s+", " ");
  }

  private static boolean jobSetCompleted() {
    var jobSet =
        admin
            .genericKubernetesResources("jobset.x-k8s.io/v1alpha2", "JobSet")
            .inNamespace("team-llm")
            .withName("llm-pretrain")
            .get();
    return jobSet != null && statusCondition(jobSet.getAdditionalProperties(), "Completed");
  }

  /** Whether a custom resource's status.conditions has {@code type} True. */
  private static boolean statusCondition(Map<String, Object> resource, String type) {
    if (!(resource.get("status") instanceof Map<?, ?> s)
        || !(s.get("conditions") instanceof List<?> conditions)) {
      return false;
    }
    return conditions.stream()
        .anyMatch(
            c ->
                c instanceof Map<?, ?> m
                    && type.equals(m.get("type"))
                    && "True".equals(m.get("status")));
  }

  private static boolean condition(Job job, String type) {
    return job != null
        && job.getStatus() != null
        && job.getStatus().getConditions() != null
        && job.getStatus().getConditions().stream()
            .anyMatch(c -> type.equals(c.getType()) && "True".equals(c.getStatus()));
  }
}
