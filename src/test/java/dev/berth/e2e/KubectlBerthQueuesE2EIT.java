package dev.berth.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.berth.api.v1beta1.ClusterQueue;
import dev.berth.api.v1beta1.LocalQueue;
import dev.berth.api.v1beta1.UsageReport;
import dev.berth.api.v1beta1.UsageReportSpec;
import dev.berth.api.v1beta1.UsageReportStatus;
import dev.berth.api.v1beta1.Workload;
import dev.berth.operator.BerthOperator;
import dev.berth.webhook.WebhookRuntime;
import io.fabric8.kubernetes.api.model.Config;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
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
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 46, deliverable 6: kueuectl's commands in {@code kubectl berth} (create, list, stop/resume,
 * usage), run as a user runs them, {@code kubectl berth ...} through the real kubectl, against a
 * real API server with Berth's webhooks registered and the operator running. Once as an admin (a
 * user bound to cluster-admin, not the operator's identity) and once as a team member ({@code edit}
 * and the chart's {@code berth-batch-user} in the team's namespace): what RBAC refuses the member
 * comes back as the API server's Forbidden, one line on stderr, exit code 1.
 */
class KubectlBerthQueuesE2EIT {
  private static final String NS = "cli-team";
  private static final String ADMIN = "cli-admin";
  private static final String MEMBER = "cli-member";
  private static final ObjectMapper JSON = new ObjectMapper();
  private static TestApiServer.Cluster cluster;
  private static KubernetesClient admin;
  private static WebhookRuntime webhooks;
  private static BerthOperator operator;
  private static Path bin;

  @TempDir static Path home;

  record Run(int code, String out, String err) {
    /** kubectl's convention for a failed plugin: one line "error: ..." on stderr, exit code 1. */
    void failedWithOneLine(String... contains) {
      assertThat(code).as(this.toString()).isEqualTo(1);
      assertThat(err.lines().toList()).as(this.toString()).hasSize(1);
      assertThat(err).startsWith("error: ").contains(contains);
    }
  }

  @BeforeAll
  static void setUp() throws Exception {
    cluster = TestApiServer.dedicated();
    admin = cluster.client();
    Namespaces.ensure(admin, "berth-system");
    Namespaces.ensure(admin, NS, Map.of("berth.dev/team", "cli"));
    admin
        .resource(
            new ClusterRoleBindingBuilder()
                .withNewMetadata()
                .withName(ADMIN)
                .endMetadata()
                .withNewRoleRef("rbac.authorization.k8s.io", "ClusterRole", "cluster-admin")
                .addNewSubject()
                .withKind("User")
                .withName(ADMIN)
                .withApiGroup("rbac.authorization.k8s.io")
                .endSubject()
                .build())
        .serverSideApply();
    TeamMemberRoles.bind(admin, MEMBER, NS);
    webhooks = ServedWebhooks.start(admin);
    operator = RunningOperator.startNew(cluster.kubeconfig(), false);
    admin.resource(ScenarioObjects.flavor("cli-flavor", Map.of())).create();

    bin = KubectlBerthPlugin.installIn(home.resolve("bin"));
    Files.writeString(home.resolve(ADMIN), kubeconfigAs(ADMIN));
    Files.writeString(home.resolve(MEMBER), kubeconfigAs(MEMBER));
    // The API server calls the webhooks a moment after they are registered: the defaulting one
    // writes stopPolicy into a ClusterQueue created (dry run) as the admin.
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                berth(ADMIN, "create", "cq", "probe", "--dry-run=server", "-o", "json")
                    .out()
                    .contains("\"stopPolicy\" : \"None\""));
  }

  @AfterAll
  static void tearDown() {
    if (operator != null) {
      operator.close();
    }
    if (webhooks != null) {
      webhooks.close();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void anAdminCreatesQueuesTheWebhooksAcceptAndBadInputNamesTheFlag() throws Exception {
    ensureQueues();
    ClusterQueue cq = admin.resources(ClusterQueue.class).withName("cli-cq").get();
    // Defaulted by Berth's mutating webhook, so the validating ones saw it too.
    assertThat(cq.getSpec().stopPolicy.name()).isEqualTo("None");
    assertThat(cq.getSpec().queueingStrategy.name()).isEqualTo("StrictFIFO");
    assertThat(cq.getSpec().cohortName).isEqualTo("cli");
    assertThat(cq.getSpec().namespaceSelector.getMatchLabels())
        .containsEntry("berth.dev/team", "cli");
    JsonNode stored = JSON.valueToTree(cq);
    assertThat(stored.at("/spec/resourceGroups/0/coveredResources").toString())
        .isEqualTo("[\"cpu\",\"memory\"]");
    assertThat(stored.at("/spec/resourceGroups/0/flavors/0/resources/0/borrowingLimit").asText())
        .isEqualTo("1");
    assertThat(admin.resources(LocalQueue.class).inNamespace(NS).withName("cli-lq").get())
        .isNotNull();

    // Client dry run: the object, nothing stored; applied as printed, the API server accepts it.
    Run printed =
        berth(
            ADMIN,
            "create",
            "clusterqueue",
            "cli-printed",
            "--nominal-quota",
            "cli-flavor:cpu=1",
            "--dry-run=client",
            "-o",
            "yaml");
    assertThat(printed.code()).as(printed.toString()).isZero();
    JsonNode yaml = new ObjectMapper(new YAMLFactory()).readTree(printed.out());
    assertThat(yaml.path("kind").asText()).isEqualTo("ClusterQueue");
    assertThat(admin.resources(ClusterQueue.class).withName("cli-printed").get()).isNull();
    Run server =
        berth(
            ADMIN,
            "create",
            "cq",
            "cli-server",
            "--nominal-quota",
            "cli-flavor:cpu=1",
            "--dry-run=server");
    assertThat(server.out())
        .isEqualTo("clusterqueues.berth.dev/cli-server created (server dry run)\n");
    assertThat(admin.resources(ClusterQueue.class).withName("cli-server").get()).isNull();

    // Refused by the API server's checks, named by its field path.
    berth(ADMIN, "create", "cq", "cli-bad", "--namespace-selector", "team=a b")
        .failedWithOneLine("spec.namespaceSelector");
    berth(ADMIN, "create", "localqueue", "cli-orphan", "-c", "nosuch", "-n", NS)
        .failedWithOneLine("clusterqueue nosuch not found", "-i");
    Run ignored =
        berth(ADMIN, "create", "localqueue", "cli-orphan", "-c", "nosuch", "-n", NS, "-i");
    assertThat(ignored.out()).isEqualTo("localqueues.berth.dev/cli-orphan created\n");

    // Refused here, before any call: exit 2, the flag named, where to read more.
    Run bad = berth(ADMIN, "create", "clusterqueue", "x", "--nominal-quota", "cpu=9");
    assertThat(bad.code()).isEqualTo(2);
    assertThat(bad.err())
        .isEqualTo(
            "error: --nominal-quota: \"cpu=9\" is not FLAVOR:RESOURCE=QUANTITY[;RESOURCE=QUANTITY]"
                + " (e.g. default:cpu=9;memory=36Gi)\n"
                + "See 'kubectl berth create clusterqueue --help' for usage.\n");
    Run unknown = berth(ADMIN, "create", "cq", "x", "--bogus");
    assertThat(unknown.code()).isEqualTo(2);
    assertThat(unknown.err())
        .isEqualTo(
            "error: unknown flag --bogus\nSee 'kubectl berth create clusterqueue --help' for usage.\n");
  }

  @Test
  void aTeamMemberIsRefusedQueueChangesByTheApiServer() throws Exception {
    ensureQueues();
    String forbidden = "Error from server (Forbidden)";
    berth(MEMBER, "create", "clusterqueue", "mine", "--nominal-quota", "cli-flavor:cpu=1")
        .failedWithOneLine(
            forbidden, "User \"" + MEMBER + "\" cannot create resource \"clusterqueues\"");
    berth(MEMBER, "create", "localqueue", "mine", "-c", "cli-cq", "-n", NS)
        .failedWithOneLine(forbidden, "cannot create resource \"localqueues\"");
    berth(MEMBER, "stop", "clusterqueue", "cli-cq")
        .failedWithOneLine(forbidden, "User \"" + MEMBER + "\" cannot", "\"clusterqueues\"");
    berth(MEMBER, "stop", "localqueue", "cli-lq", "-n", NS)
        .failedWithOneLine(forbidden, "cannot patch resource \"localqueues\"");
    berth(MEMBER, "list", "clusterqueues")
        .failedWithOneLine(forbidden, "cannot list resource \"clusterqueues\"");
    assertThat(admin.resources(ClusterQueue.class).withName("mine").get()).isNull();
    assertThat(
            admin
                .resources(ClusterQueue.class)
                .withName("cli-cq")
                .get()
                .getSpec()
                .stopPolicy
                .name())
        .isEqualTo("None");
    // Reading their own namespace's queues is theirs.
    Run lqs = berth(MEMBER, "list", "localqueues", "-n", NS);
    assertThat(lqs.code()).as(lqs.toString()).isZero();
    assertThat(lqs.out().lines().toList().get(0))
        .matches("NAME +CLUSTERQUEUE +PENDING WORKLOADS +ADMITTED WORKLOADS +STOP POLICY +AGE");
    assertThat(row(lqs, "cli-lq")).containsPattern("^cli-lq +cli-cq +\\d+ +\\d+ +None +\\S+$");
  }

  @Test
  void workloadsAreListedByQueueAndStatusAndStoppedAndResumed() throws Exception {
    ensureQueues();
    // Jobs as a team submits them; the operator makes their Workloads and admits what fits.
    admin.resource(ScenarioObjects.job(NS, "small", "cli-lq", 1, "1")).create();
    admin.resource(ScenarioObjects.job(NS, "big", "cli-lq", 1, "3")).create();
    await()
        .atMost(Duration.ofSeconds(60))
        .until(
            () -> status(workloadOf("small")).equals("ADMITTED") && !workloadOf("big").isEmpty());
    String small = workloadOf("small");
    String big = workloadOf("big");
    Run all = berth(MEMBER, "list", "wl", "-n", NS);
    String header = all.out().lines().findFirst().orElseThrow();
    assertThat(header)
        .startsWith("NAME ")
        .containsPattern(
            "NAME +JOB TYPE +JOB NAME +LOCALQUEUE +CLUSTERQUEUE +STATUS +ACTIVE +EXEC TIME +AGE$");
    String bigRow = row(all, big);
    assertThat(bigRow.substring(header.indexOf("JOB TYPE"))).startsWith("Job ");
    assertThat(bigRow.substring(header.indexOf("JOB NAME"))).startsWith("big ");
    assertThat(bigRow.substring(header.indexOf("LOCALQUEUE"))).startsWith("cli-lq ");
    // Not admitted: its ClusterQueue is its LocalQueue's.
    assertThat(bigRow.substring(header.indexOf("CLUSTERQUEUE"))).startsWith("cli-cq ");
    assertThat(bigRow.substring(header.indexOf("STATUS"))).startsWith("PENDING ");
    assertThat(names(berth(MEMBER, "list", "workloads", "-n", NS, "--status", "pending")))
        .containsExactly(big);
    assertThat(
            names(
                berth(MEMBER, "list", "workloads", "-n", NS, "--status=admitted", "-c", "cli-cq")))
        .containsExactly(small);
    assertThat(names(berth(MEMBER, "list", "workloads", "-n", NS, "-q", "other"))).isEmpty();
    // Other namespaces are not the member's to list.
    berth(MEMBER, "list", "workloads", "-A")
        .failedWithOneLine("Error from server (Forbidden)", "cannot list resource \"workloads\"");
    // Deactivating a Workload is the batch admin's, as in Kueue's roles.
    berth(MEMBER, "stop", "workload", small, "-n", NS)
        .failedWithOneLine("Error from server (Forbidden)", "cannot patch resource \"workloads\"");
    assertThat(stored(small).getSpec().active).isNotEqualTo(Boolean.FALSE);

    Run stopped = berth(ADMIN, "stop", "workload", small, "-n", NS);
    assertThat(stopped.out()).isEqualTo("workloads.berth.dev/" + small + " stopped\n");
    assertThat(stored(small).getSpec().active).isFalse();
    // Evicted, its Job suspended, its quota given back: pending, inactive.
    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () ->
                assertThat(row(berth(MEMBER, "list", "workloads", "-n", NS), small))
                    .contains(" PENDING ")
                    .contains(" false "));
    assertThat(berth(ADMIN, "resume", "workload", small, "-n", NS).out())
        .isEqualTo("workloads.berth.dev/" + small + " resumed\n");
    await().atMost(Duration.ofSeconds(60)).until(() -> status(small).equals("ADMITTED"));

    // Queues: Hold with --keep-already-running, HoldAndDrain without; resume sets None.
    assertThat(berth(ADMIN, "stop", "clusterqueue", "cli-cq", "--keep-already-running").out())
        .isEqualTo("clusterqueues.berth.dev/cli-cq stopped\n");
    assertThat(stopPolicy(ClusterQueue.class, null, "cli-cq")).isEqualTo("Hold");
    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () ->
                assertThat(
                        row(berth(ADMIN, "list", "clusterqueues", "--active", "false"), "cli-cq"))
                    .contains(" false ")
                    .contains(" Hold "));
    // Held, not drained: the admitted one keeps its admission.
    assertThat(status(small)).isEqualTo("ADMITTED");
    assertThat(berth(ADMIN, "resume", "cq", "cli-cq").out())
        .isEqualTo("clusterqueues.berth.dev/cli-cq resumed\n");
    assertThat(stopPolicy(ClusterQueue.class, null, "cli-cq")).isEqualTo("None");
    assertThat(berth(ADMIN, "stop", "localqueue", "cli-lq", "-n", NS).out())
        .isEqualTo("localqueues.berth.dev/cli-lq stopped\n");
    assertThat(stopPolicy(LocalQueue.class, NS, "cli-lq")).isEqualTo("HoldAndDrain");
    assertThat(row(berth(MEMBER, "list", "lq", "-n", NS), "cli-lq")).contains(" HoldAndDrain ");
    berth(ADMIN, "resume", "lq", "cli-lq", "-n", NS);
    assertThat(stopPolicy(LocalQueue.class, NS, "cli-lq")).isEqualTo("None");
  }

  /** The Workload of a Job, by the JOB NAME column of the member's list (-o json). */
  private static String workloadOf(String job) throws Exception {
    return listed("jobName", job).path("name").asText();
  }

  private static String status(String workload) throws Exception {
    return listed("name", workload).path("status").asText();
  }

  /**
   * The row of the member's {@code list workloads -o json} whose {@code field} is {@code value}.
   */
  private static JsonNode listed(String field, String value) throws Exception {
    for (JsonNode item :
        JSON.readTree(berth(MEMBER, "list", "workloads", "-n", NS, "-o", "json").out())
            .path("items")) {
      if (item.path(field).asText().equals(value)) {
        return item;
      }
    }
    return JSON.missingNode();
  }

  private static <T extends io.fabric8.kubernetes.api.model.HasMetadata> String stopPolicy(
      Class<T> type, String ns, String name) {
    JsonNode o =
        JSON.valueToTree(
            ns == null
                ? admin.resources(type).withName(name).get()
                : admin.resources(type).inNamespace(ns).withName(name).get());
    return o.at("/spec/stopPolicy").asText();
  }

  @Test
  void usageSumsTheReportsAsTheOperatorsUsageEndpointDoes() throws Exception {
    report("2026-10", "cli-lq", 2, "7200", "7200", "5400");
    report("2026-11", "cli-batch", 1, "1800", null, null);
    String[] range = {"--by", "localqueue", "--from", "2026-10", "--to", "2026-12"};
    Run member = berth(MEMBER, concat(new String[] {"usage", "-n", NS}, range));
    assertThat(member.code()).as(member.toString()).isZero();
    assertThat(member.out())
        .isEqualTo(
            """
            LOCALQUEUE           FLAVOR       RESOURCE   RUNS   RESOURCE-HOURS   USED-HOURS   UTILIZATION
            cli-team/cli-batch   cli-flavor   cpu        1      0.5
            cli-team/cli-lq      cli-flavor   cpu        2      2                1.5          0.75
            """);
    String url = "--usage-url=http://127.0.0.1:" + operator.metricsPort();
    Run endpoint = berth(ADMIN, concat(new String[] {"usage", url}, range));
    assertThat(endpoint.out()).isEqualTo(member.out());
    assertThat(
            JSON.readTree(
                berth(ADMIN, concat(new String[] {"usage", url, "-o", "json"}, range)).out()))
        .isEqualTo(
            JSON.readTree(
                berth(MEMBER, concat(new String[] {"usage", "-n", NS, "-o", "json"}, range))
                    .out()));
    berth(MEMBER, "usage", "-A")
        .failedWithOneLine(
            "Error from server (Forbidden)", "cannot list resource \"usagereports\"");
    Run badMonth = berth(MEMBER, "usage", "--from", "2026-13");
    assertThat(badMonth.code()).isEqualTo(2);
    assertThat(badMonth.err())
        .startsWith("error: --from: \"2026-13\" is not a month such as 2026-12\n");
  }

  @Test
  void helpIsPrintedAsKubectlPluginsPrintIt() throws Exception {
    Run create = berth(MEMBER, "create", "--help");
    assertThat(create.code()).isZero();
    assertThat(create.out()).contains("Available Commands:\n  clusterqueue ").contains("Usage:\n");
    assertThat(berth(MEMBER, "create", "clusterqueue", "-h").out())
        .contains("Examples:\n")
        .contains("--nominal-quota=''")
        .contains("Usage:\n  kubectl berth create clusterqueue NAME [options]\n");
    assertThat(berth(MEMBER, "list", "workloads", "--help").out()).contains("--status='all'");
    assertThat(berth(MEMBER, "stop", "--help").out()).contains("--keep-already-running");
    assertThat(berth(MEMBER, "usage", "--help").out()).contains("--by='namespace'");
    assertThat(berth(MEMBER, "help", "resume").out()).startsWith("Resume a stopped queue");
  }

  private static synchronized void ensureQueues() throws Exception {
    if (admin.resources(ClusterQueue.class).withName("cli-cq").get() != null) {
      return;
    }
    Run cq =
        berth(
            ADMIN,
            "create",
            "clusterqueue",
            "cli-cq",
            "--cohort",
            "cli",
            "--namespace-selector",
            "berth.dev/team=cli",
            "--queuing-strategy",
            "StrictFIFO",
            "--nominal-quota",
            "cli-flavor:cpu=2;memory=4Gi",
            "--borrowing-limit",
            "cli-flavor:cpu=1");
    assertThat(cq.out()).as(cq.toString()).isEqualTo("clusterqueues.berth.dev/cli-cq created\n");
    Run lq = berth(ADMIN, "create", "localqueue", "cli-lq", "-c", "cli-cq", "-n", NS);
    assertThat(lq.out()).as(lq.toString()).isEqualTo("localqueues.berth.dev/cli-lq created\n");
  }

  private static Workload stored(String name) {
    return admin.resources(Workload.class).inNamespace(NS).withName(name).get();
  }

  /** A month's report as the operator writes them: the object, then its status. */
  private static void report(
      String month, String lq, int runs, String seconds, String measured, String used) {
    UsageReport report = new UsageReport();
    report.getMetadata().setName(UsageReport.nameFor(month));
    report.getMetadata().setNamespace(NS);
    report.setSpec(new UsageReportSpec());
    report.getSpec().month = month;
    UsageReport created = admin.resource(report).create();
    UsageReportStatus status = new UsageReportStatus();
    status.runs = runs;
    UsageReportStatus.Entry e = new UsageReportStatus.Entry();
    e.localQueue = lq;
    e.clusterQueue = "cli-cq";
    e.costCentre = "";
    e.flavor = "cli-flavor";
    e.resource = "cpu";
    e.runs = runs;
    e.resourceSeconds = seconds;
    e.measuredResourceSeconds = measured;
    e.usedResourceSeconds = used;
    status.entries = List.of(e);
    created.setStatus(status);
    admin.resource(created).updateStatus();
  }

  private static String[] concat(String[] a, String[] b) {
    String[] out = java.util.Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }

  private static String row(Run list, String name) {
    return list.out().lines().filter(l -> l.startsWith(name + " ")).findFirst().orElse("");
  }

  private static List<String> names(Run list) {
    assertThat(list.code()).as(list.toString()).isZero();
    if (list.out().equals("No resources found.\n")) {
      return List.of();
    }
    return list.out().lines().skip(1).map(l -> l.split(" ")[0]).toList();
  }

  /** The test server's kubeconfig, its user impersonating {@code user} (as kubectl --as does). */
  private static String kubeconfigAs(String user) {
    Config config = Serialization.unmarshal(cluster.kubeconfig(), Config.class);
    config.getUsers().get(0).getUser().setAs(user);
    config.getUsers().get(0).getUser().setAsGroups(List.of("system:authenticated"));
    return Serialization.asYaml(config);
  }

  /** {@code kubectl berth ARGS} through the real kubectl, as {@code user}, output piped. */
  private static Run berth(String user, String... args) throws Exception {
    List<String> cmd = new ArrayList<>(List.of(Kubectls.path().toString(), "berth"));
    cmd.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(cmd);
    pb.environment()
        .put("PATH", bin + ":" + Kubectls.path().getParent() + ":" + System.getenv("PATH"));
    pb.environment().put("KUBECONFIG", home.resolve(user).toString());
    Path out = Files.createTempFile(home, "out", ".txt");
    Path err = Files.createTempFile(home, "err", ".txt");
    Process p = pb.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
    if (!p.waitFor(120, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError("timed out: " + cmd);
    }
    return new Run(
        p.exitValue(),
        Files.readString(out, StandardCharsets.UTF_8),
        Files.readString(err, StandardCharsets.UTF_8));
  }

  /** The cached kubectl of the test binaries (scripts/kube-binaries.sh). */
  static final class Kubectls {
    private Kubectls() {}

    static Path path() throws IOException {
      Path k8s = Path.of(System.getProperty("user.home"), ".kubeapitest", "k8s");
      try (var dirs = Files.list(k8s)) {
        return dirs.map(d -> d.resolve("kubectl"))
            .filter(Files::isExecutable)
            .sorted()
            .findFirst()
            .orElseThrow(() -> new AssertionError("no kubectl under " + k8s));
      }
    }
  }
}
