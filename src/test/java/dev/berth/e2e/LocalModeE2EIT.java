package dev.berth.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.berth.api.v1beta1.Berth;
import dev.berth.e2e.plane.JobSetStandIn;
import dev.berth.local.ControllerManager;
import dev.berth.local.LocalMode;
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
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Local mode as `./berth --local` starts it (LocalMode.start, on the same control-plane harness as
 * the suite), with samples/ applied and pods running 5 s: every sample Job really runs and
 * completes, and kubectl shows a Job Berth never admitted as Suspended, with no pods. Where local
 * mode has no JobSet controller (scripts/jobset-binary.sh needs ../shared/third-party; local mode
 * says so and admits JobSets that nothing runs), the suite's {@link JobSetStandIn} runs the sample
 * JobSet's child Jobs instead.
 */
class LocalModeE2EIT {
  private static final Duration SAMPLES_TIMEOUT = Duration.ofSeconds(240);
  private static LocalMode.Running local;
  private static KubernetesClient admin;
  private static Path kubeconfig;
  private static JobSetStandIn jobSetStandIn;

  @BeforeAll
  static void setUp() throws Exception {
    Path work = Path.of("target/local-mode-it").toAbsolutePath();
    local = LocalMode.start(LocalModeOptions.of(work).toArray(String[]::new), System.out);
    kubeconfig = local.adminKubeconfig();
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
    String token =
        java.net.URLDecoder.decode(
            url.substring(url.indexOf("#token=") + 7), StandardCharsets.UTF_8);
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
    var http = java.net.http.HttpClient.newBuilder().sslContext(tls).build();
    String base = url.substring(0, url.indexOf('#'));
    var page =
        http.send(
            java.net.http.HttpRequest.newBuilder(java.net.URI.create(base)).build(),
            java.net.http.HttpResponse.BodyHandlers.ofString());
    assertThat(page.statusCode()).isEqualTo(200);
    assertThat(page.body()).contains("<h2 id=\"pending-h\"");
    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () -> {
              var state =
                  http.send(
                      java.net.http.HttpRequest.newBuilder(
                              java.net.URI.create(base + "api/v1/state"))
                          .header("Authorization", "Bearer " + token)
                          .build(),
                      java.net.http.HttpResponse.BodyHandlers.ofString());
              assertThat(state.statusCode()).isEqualTo(200);
              assertThat(state.body())
                  .contains("system:serviceaccount:berth-system:local-admin")
                  .contains("\"name\" : \"team-llm\"");
            });
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

  private static String kubectl(String... args) throws IOException, InterruptedException {
    Path kubectl = ControllerManager.binary("kubectl");
    List<String> command =
        new ArrayList<>(List.of(kubectl.toString(), "--kubeconfig=" + kubeconfig));
    command.addAll(List.of(args));
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
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
    if (jobSet == null
        || !(jobSet.getAdditionalProperties().get("status") instanceof Map<?, ?> s)
        || !(s.get("conditions") instanceof List<?> conditions)) {
      return false;
    }
    return conditions.stream()
        .anyMatch(
            c ->
                c instanceof Map<?, ?> m
                    && "Completed".equals(m.get("type"))
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
