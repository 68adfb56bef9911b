package dev.berth.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.berth.api.v1beta1.Berth;
import dev.berth.api.v1beta1.ClusterQueue;
import dev.berth.e2e.Processes.Run;
import io.fabric8.kubernetes.api.model.Config;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 16, deliverables 3 and 4: estimated start times, and {@code kubectl berth} installed by
 * scripts/install-kubectl-berth.sh and run as {@code kubectl berth ...} against the real API server
 * and the running operator, as a team member (a ServiceAccount token in her kubeconfig), once by
 * process and once typed into a tmux pane.
 *
 * <p>One cpu in ClusterQueue kb-cq: "running" holds it with a maximum execution time of 600 s;
 * "first" (300 s) and "second" wait, so they are expected to start 600 s and 900 s after "running"
 * was admitted, on the basis "maxExecutionTime".
 */
class KubectlBerthE2EIT {
  private static final String NS = "kb-team";
  private static final ObjectMapper JSON = new ObjectMapper();
  private static KubernetesClient client;
  private static Scenario s;
  private static Path bin;
  private static Path kubeconfig;

  @TempDir static Path home;

  @BeforeAll
  static void setUp() throws Exception {
    client = TestApiServer.client();
    s = new Scenario(NS);
    bin = home.resolve("bin");
    Path repo = Path.of(System.getProperty("berth.repo"));
    ProcessBuilder install =
        new ProcessBuilder(
            "bash", repo.resolve("scripts/install-kubectl-berth.sh").toString(), bin.toString());
    install
        .environment()
        .put(
            "KUBECTL_BERTH_JAR",
            repo.resolve("kubectl-plugin/target/kubectl-berth.jar").toString());
    Run installed = run(install);
    assertThat(installed.code()).as(installed.err()).isZero();
    assertThat(bin.resolve("kubectl-berth")).isExecutable();
    assertThat(bin.resolve("kubectl-berth.d/kubectl-berth.jsa")).exists();

    client.resource(ScenarioObjects.flavor("kb-flavor", Map.of())).create();
    ClusterQueue cq = ScenarioObjects.clusterQueue("kb-cq", "kb-flavor", "cpu", "1");
    cq.getSpec().cohortName = "kb-cohort";
    client.resource(cq).create();
    ClusterQueue spare = ScenarioObjects.clusterQueue("kb-spare", "kb-flavor", "cpu", "2");
    spare.getSpec().cohortName = "kb-cohort";
    ScenarioObjects.quota(spare).lendingLimit = new Quantity("0");
    client.resource(spare).create();
    client.resource(ScenarioObjects.localQueue(NS, "lq", "kb-cq")).create();
    kubeconfig = home.resolve("alice.kubeconfig");
    Files.writeString(kubeconfig, kubeconfigOf(teamMemberToken()));

    s.submit(bounded("running", 600));
    s.awaitRunning("running");
    s.submit(bounded("first", 300));
    s.submit(bounded("second", 300));
  }

  private static Job bounded(String name, int seconds) {
    Job job = ScenarioObjects.job(NS, name, "lq", 1, "1");
    job.getMetadata().getLabels().put(Berth.MAX_EXEC_TIME_LABEL, String.valueOf(seconds));
    return job;
  }

  @Test
  void pendingShowsPositionsReasonsAndEstimatesFromMaximumExecutionTimes() throws Exception {
    // The engine's clock is in milliseconds.
    Instant admitted =
        Instant.parse(s.condition("running", "Admitted").orElseThrow().lastTransitionTime)
            .truncatedTo(java.time.temporal.ChronoUnit.MILLIS);
    // The operator replays every 15 s; the first replay after the submissions gives both.
    JsonNode items =
        await()
            .atMost(Duration.ofSeconds(60))
            .pollInterval(Duration.ofSeconds(2))
            .until(
                () -> JSON.readTree(berth("pending", "-n", NS, "-o", "json").out()).get("items"),
                i ->
                    i.size() == 2
                        && !i.get(1).path("estimatedStart").isNull()
                        && i.get(1).path("estimatedStart").isTextual());
    assertThat(items.get(0).get("name").asText()).startsWith("job-first");
    assertThat(items.get(0).get("positionInClusterQueue").asInt()).isZero();
    assertThat(items.get(1).get("positionInLocalQueue").asInt()).isEqualTo(1);
    assertThat(items.get(0).get("reason").asText()).isEqualTo("WaitingForQuota");
    assertThat(items.get(0).get("estimateBasis").asText()).isEqualTo("maxExecutionTime");
    // Each names the Job it was made for and the Job's own state (read from the operator's
    // informer cache: suspended until admitted).
    assertThat(items.get(0).path("owner").path("kind").asText()).isEqualTo("Job");
    assertThat(items.get(0).path("owner").path("name").asText()).isEqualTo("first");
    assertThat(items.get(0).path("owner").path("status").asText()).isEqualTo("Suspended");
    assertThat(items.get(1).path("owner").path("name").asText()).isEqualTo("second");
    assertThat(Instant.parse(items.get(0).get("estimatedStart").asText()))
        .isEqualTo(admitted.plusSeconds(600));
    assertThat(Instant.parse(items.get(1).get("estimatedStart").asText()))
        .isEqualTo(admitted.plusSeconds(900));

    // kubectl describe shows it: the QuotaReserved=False message ends with the estimate.
    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () ->
                assertThat(
                        s.condition("first", "QuotaReserved")
                            .map(c -> c.message)
                            .orElse("(no QuotaReserved condition yet)"))
                    .endsWith(
                        "; estimated start "
                            + admitted
                                .plusSeconds(600)
                                .truncatedTo(java.time.temporal.ChronoUnit.MINUTES)
                                .toString()
                                .replace(":00Z", "Z")
                            + " (maxExecutionTime)"));

    Run table = berth("pending", "--cq", "kb-cq");
    List<String> lines = table.out().lines().toList();
    assertThat(table.out()).doesNotContain("\u001b[");
    assertThat(lines.get(0)).startsWith("CLUSTERQUEUE   POS   NAMESPACE");
    String header = lines.get(0);
    String row = lines.stream().filter(l -> l.contains("job-second")).findFirst().orElseThrow();
    assertThat(row.indexOf("WaitingForQuota")).isEqualTo(header.indexOf("REASON"));
    assertThat(row.substring(header.indexOf("BASIS"))).startsWith("maxExecutionTime");
    assertThat(row.substring(header.indexOf("ESTIMATED START"))).startsWith("in ");
    assertThat(row.substring(header.indexOf("OWNER "))).startsWith("Job/second ");
    assertThat(row.substring(header.indexOf("OWNER STATUS"))).startsWith("Suspended ");
  }

  @Test
  void queuesShowsUsageAgainstNominalAndCohortsTheTree() throws Exception {
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () -> {
              String out = berth("queues").out();
              String header = out.lines().findFirst().orElseThrow();
              String row =
                  out.lines().filter(l -> l.startsWith("kb-cq ")).findFirst().orElseThrow();
              assertThat(row.substring(header.indexOf("USAGE/NOMINAL"))).startsWith("1/1 ");
              assertThat(row.substring(header.indexOf("COHORT"))).startsWith("kb-cohort");
              assertThat(row.substring(header.indexOf("PENDING")).trim()).startsWith("2");
              assertThat(out.lines().filter(l -> l.startsWith(NS + " ")).findFirst().orElseThrow())
                  .contains("kb-cq")
                  .contains("cpu 1 (kb-flavor)");
            });
    JsonNode yaml =
        new com.fasterxml.jackson.databind.ObjectMapper(
                new com.fasterxml.jackson.dataformat.yaml.YAMLFactory())
            .readTree(berth("queues", "-o", "yaml").out());
    JsonNode spare = null;
    for (JsonNode cq : yaml.get("clusterQueues")) {
      if (cq.get("name").asText().equals("kb-spare")) {
        spare = cq;
      }
    }
    assertThat(spare).isNotNull();
    assertThat(spare.at("/resources/0/nominalQuota").asText()).isEqualTo("2");
    assertThat(spare.at("/resources/0/lent").asText()).isEqualTo("0");

    String tree = berth("cohorts").out();
    List<String> lines = tree.lines().toList();
    int cohort = indexOf(lines, "kb-cohort ");
    assertThat(lines.get(cohort)).contains("Cohort (implicit)");
    assertThat(lines.get(cohort + 1)).startsWith("├─ kb-cq ").contains("cpu 1 (kb-flavor)");
    assertThat(lines.get(cohort + 2)).startsWith("└─ kb-spare ").contains("cpu 2 (kb-flavor)");
  }

  @Test
  void whyExplainsAJobByItsName() throws Exception {
    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () -> {
              String out = berth("why", "first", "-n", NS).out();
              // Labels padded to one column: "Estimated start:" is the longest.
              assertThat(out)
                  .contains("Owner:           Job first\n")
                  .contains("State:           Pending\n")
                  .contains("Reason:          WaitingForQuota\n")
                  .contains("Position:        0 in ClusterQueue, 0 in LocalQueue (0 = next)\n")
                  .containsPattern("Estimated start: in \\S+ \\(\\S+\\) \\[maxExecutionTime\\]\n")
                  .contains("Explanation:     WaitingForQuota: needs cpu 1 on flavor kb-flavor");
            });
    Run missing = berth("why", "nosuch", "-n", NS);
    assertThat(missing.code()).isEqualTo(1);
    assertThat(missing.err()).contains("no Workload and no Job or JobSet's Workload named nosuch");
    Run bad = berth("pending", "-o", "xml");
    assertThat(bad.code()).isEqualTo(2);
    assertThat(bad.err()).contains("--output: xml is not json or yaml");
  }

  @Test
  void startsQuicklyAndIsTypedIntoATerminal() throws Exception {
    long best = Long.MAX_VALUE;
    for (int i = 0; i < 3; i++) {
      long t0 = System.nanoTime();
      assertThat(berth("help").code()).isZero();
      best = Math.min(best, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0));
    }
    System.out.printf(
        "[berth-test] kubectl berth help: best of 3 %d ms (load %s)%n",
        best, Files.readString(Path.of("/proc/loadavg")).split(" ")[0]);

    String session = "kb" + ProcessHandle.current().pid();
    Path rc = home.resolve("shell.rc");
    Files.writeString(
        rc,
        "export PATH="
            + bin
            + ":"
            + kubectlDir()
            + ":$PATH\n"
            + "export KUBECONFIG="
            + kubeconfig
            + "\n"
            + "export BERTH_VISIBILITY_URL="
            + visibilityUrl()
            + "\n"
            + "export BERTH_VISIBILITY_CA="
            + visibilityCa()
            + "\nPS1='$ '\n");
    assertThat(
            run(new ProcessBuilder(
                    "tmux",
                    "-L",
                    session,
                    "new-session",
                    "-d",
                    "-s",
                    session,
                    "-x",
                    "220",
                    "-y",
                    "50",
                    "bash --noprofile --rcfile " + rc + " -i"))
                .code())
        .isZero();
    try {
      // capture-pane drops trailing blanks: the prompt "$ " reads "$".
      await()
          .atMost(Duration.ofSeconds(20))
          .until(() -> pane(session).lines().anyMatch(l -> l.equals("$")));
      run(
          new ProcessBuilder(
              "tmux",
              "-L",
              session,
              "send-keys",
              "-t",
              session,
              "kubectl berth pending -n " + NS,
              "Enter"));
      String screen =
          await()
              .atMost(Duration.ofSeconds(60))
              .until(() -> pane(session), p -> p.contains("job-second") && p.trim().endsWith("$"));
      System.out.println("[berth-test] tmux pane:\n" + screen.replaceAll("\u001b\\[[0-9;]*m", ""));
      // On a terminal the reason is coloured (yellow: waits for quota), the headers bold.
      assertThat(screen).contains("\u001b[33mWaitingForQuota").contains("\u001b[1mCLUSTERQUEUE");
    } finally {
      run(new ProcessBuilder("tmux", "-L", session, "kill-server"));
    }
  }

  private static String pane(String session) throws Exception {
    return run(new ProcessBuilder("tmux", "-L", session, "capture-pane", "-p", "-e", "-t", session))
        .out();
  }

  private static int indexOf(List<String> lines, String prefix) {
    for (int i = 0; i < lines.size(); i++) {
      if (lines.get(i).startsWith(prefix)) {
        return i;
      }
    }
    throw new AssertionError("no line starts with " + prefix + " in\n" + String.join("\n", lines));
  }

  /** {@code kubectl berth ARGS} as the team member, output piped (no terminal). */
  private static Run berth(String... args) throws Exception {
    List<String> cmd =
        new ArrayList<>(List.of(kubectlDir().resolve("kubectl").toString(), "berth"));
    cmd.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(cmd);
    pb.environment().put("PATH", bin + ":" + kubectlDir() + ":" + System.getenv("PATH"));
    pb.environment().put("KUBECONFIG", kubeconfig.toString());
    pb.environment().put("BERTH_VISIBILITY_URL", visibilityUrl());
    pb.environment().put("BERTH_VISIBILITY_CA", visibilityCa().toString());
    return run(pb);
  }

  private static Run run(ProcessBuilder pb) throws IOException, InterruptedException {
    return Processes.run(pb, home);
  }

  /** The operator's HTTPS port (the visibility API is not served on the metrics port). */
  private static String visibilityUrl() {
    return "https://127.0.0.1:" + RunningOperator.shared().httpsPort();
  }

  /** The test CA that signed the HTTPS port's certificate, as a user's --visibility-ca file. */
  private static Path visibilityCa() throws IOException {
    Path ca = home.resolve("berth-ca.crt");
    if (!Files.exists(ca)) {
      Files.writeString(ca, TestHttps.caPem(), StandardCharsets.UTF_8);
    }
    return ca;
  }

  /** The cached kubectl of the test binaries (scripts/kube-binaries.sh). */
  private static Path kubectlDir() throws IOException {
    return Processes.kubectlDir();
  }

  /** A ServiceAccount of the team that may read queues, cohorts, Workloads and Events. */
  private static String teamMemberToken() {
    client
        .rbac()
        .clusterRoles()
        .resource(
            new ClusterRoleBuilder()
                .withNewMetadata()
                .withName("kb-reader")
                .endMetadata()
                .addNewRule()
                .withApiGroups("berth.dev")
                .withResources("clusterqueues", "localqueues", "cohorts", "workloads")
                .withVerbs("get", "list")
                .endRule()
                .addNewRule()
                .withApiGroups("")
                .withResources("events")
                .withVerbs("list")
                .endRule()
                .build())
        .serverSideApply();
    client
        .rbac()
        .clusterRoleBindings()
        .resource(
            new ClusterRoleBindingBuilder()
                .withNewMetadata()
                .withName("kb-alice-reads")
                .endMetadata()
                .withNewRoleRef("rbac.authorization.k8s.io", "ClusterRole", "kb-reader")
                .addNewSubject()
                .withKind("ServiceAccount")
                .withName("alice")
                .withNamespace(NS)
                .endSubject()
                .build())
        .serverSideApply();
    client
        .serviceAccounts()
        .inNamespace(NS)
        .resource(
            new ServiceAccountBuilder()
                .withNewMetadata()
                .withName("alice")
                .withNamespace(NS)
                .endMetadata()
                .build())
        .serverSideApply();
    return client
        .serviceAccounts()
        .inNamespace(NS)
        .withName("alice")
        .tokenRequest(
            new TokenRequestBuilder().withNewSpec().withExpirationSeconds(3600L).endSpec().build())
        .getStatus()
        .getToken();
  }

  /** The test server's kubeconfig with its user replaced by a bearer token. */
  private static String kubeconfigOf(String token) {
    Config config = Serialization.unmarshal(TestApiServer.kubeconfigYaml(), Config.class);
    var user = config.getUsers().get(0).getUser();
    user.setClientCertificateData(null);
    user.setClientKeyData(null);
    user.setClientCertificate(null);
    user.setClientKey(null);
    user.setToken(token);
    return Serialization.asYaml(config);
  }
}
