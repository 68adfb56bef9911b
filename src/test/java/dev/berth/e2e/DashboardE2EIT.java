package dev.berth.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.berth.api.v1beta1.ClusterQueue;
import dev.berth.api.v1beta1.ClusterQueuePreemption;
import dev.berth.api.v1beta1.Topology;
import dev.berth.api.v1beta1.TopologySpec;
import dev.berth.api.v1beta1.WorkloadPriorityClass;
import dev.berth.e2e.browser.Chromium;
import dev.berth.e2e.browser.DevTools;
import dev.berth.e2e.chart.GrafanaDashboardQueries;
import dev.berth.operator.BerthOperator;
import dev.berth.testing.Budgets;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeStatusBuilder;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBindingBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Issue 16, deliverables 5 and 6: the web dashboard in a real headless Chromium, driven over the
 * DevTools protocol, against a real API server with the operator running a known scenario, and the
 * Grafana dashboard's queries against what the same operator exports.
 *
 * <p>The scenario, on a cluster of its own: cohort dash-cohort holds dash-a (cpu: nominal 4,
 * borrowing limit 2, preempts lower priority) and dash-b (cpu: nominal 2, unused). In dash-a: low
 * (4 cpu, priority 10) is admitted, then preempted by urgent (4 cpu, priority 1000); borrow (2 cpu,
 * from dash-other) borrows dash-b's quota; big (8 cpu) can never fit; later (1 cpu, dash-other)
 * waits. Topology dash-dc has four 8-GPU nodes, one of them with a foreign pod on 3 GPUs.
 * Screenshots go to target/e2e/dashboard-e2e/ (berth.dashboard.artefacts).
 */
class DashboardE2EIT {
  private static final String TEAM = "dash-team";
  private static final String OTHER = "dash-other";
  private static final String GPU = "nvidia.com/gpu";
  private static final Path WORK =
      Path.of(System.getProperty("berth.dashboard.artefacts", "target/dashboard-e2e"))
          .toAbsolutePath();
  private static TestApiServer.Cluster cluster;
  private static KubernetesClient admin;
  private static BerthOperator operator;
  private static Chromium chromium;
  private static String base;
  private static String adminToken;
  private static String memberToken;

  @BeforeAll
  static void setUp() throws Exception {
    // Chromium first: without it the test fails here, before a cluster is started for nothing.
    chromium = Chromium.start(WORK, TestHttps.spkiPin());
    cluster = TestApiServer.dedicated();
    admin = cluster.client();
    Namespaces.ensure(admin, "berth-system");
    Namespaces.ensure(admin, TEAM);
    Namespaces.ensure(admin, OTHER);
    operator = RunningOperator.startNew(cluster.kubeconfig(), false);
    int port = operator.serveHttps("127.0.0.1", 0, TestHttps.keys(), true);
    base = "https://127.0.0.1:" + port + "/dashboard/";
    adminToken = clusterAdminToken();
    memberToken = teamMemberToken();
    topology();
    queues();
    submitScenario();
  }

  @AfterAll
  static void tearDown() {
    if (chromium != null) {
      chromium.close();
    }
    if (operator != null) {
      operator.close();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void anAdminSeesQuotasPendingDecisionsAndFragmentationLive() throws Exception {
    try (DevTools page = chromium.newPage()) {
      // Signed in by the link local mode prints: the token in the fragment.
      page.navigate(base + "#token=" + adminToken);
      awaitText(page, "#pending-body", "ExceedsMaxQuota");
      assertThat(page.evaluate("location.hash").asText())
          .as("token out of the address bar")
          .isEmpty();
      assertThat(text(page, "#who")).contains("system:serviceaccount:berth-system:dash-admin");

      // Usage against nominal quota and borrowing limit, per flavor and resource.
      assertThat(rows(page, "#queues-body table:nth-of-type(2)"))
          .contains(
              List.of("dash-a", "dash-cpu", "cpu", "6", "4", "2", "2", "none", ""),
              List.of("dash-b", "dash-cpu", "cpu", "0", "2", "0", "none", "none", ""));
      assertThat(rows(page, "#queues-body table:nth-of-type(1)"))
          .contains(List.of("dash-a", "dash-cohort", "0", "3", "2", "Active"));
      assertThat(rows(page, "#cohorts-body table"))
          .anySatisfy(
              r ->
                  assertThat(r.subList(0, 3))
                      .containsExactly("dash-cohort", "—", "dash-a, dash-b"));

      // The pending list in admission order, with positions, reasons and each Workload's Job and
      // its own state.
      assertThat(text(page, "#pending-body table caption"))
          .isEqualTo("Pending in ClusterQueue dash-a (3 shown), in admission order");
      assertThat(pendingRows(page))
          .containsExactly(
              List.of(
                  "0",
                  "0",
                  "low",
                  TEAM,
                  "lq",
                  "10",
                  "cpu 4",
                  "WaitingForQuota",
                  "Job/low",
                  "Suspended"),
              List.of(
                  "1",
                  "1",
                  "big",
                  TEAM,
                  "lq",
                  "0",
                  "cpu 8",
                  "ExceedsMaxQuota",
                  "Job/big",
                  "Suspended"),
              List.of(
                  "2",
                  "0",
                  "later",
                  OTHER,
                  "lq",
                  "0",
                  "cpu 1",
                  "WaitingForQuota",
                  "Job/later",
                  "Suspended"));

      // Admissions, the preemption (naming its preemptor) and the borrowing admission.
      List<List<String>> recent = rows(page, "#recent-body table");
      assertThat(recent)
          .anySatisfy(
              r ->
                  assertThat(r.subList(1, 5))
                      .containsExactly(
                          "Preempted",
                          TEAM + "/" + workloadName(TEAM, "low"),
                          "dash-a",
                          "InClusterQueue"));
      assertThat(
              recent.stream()
                  .filter(r -> r.get(1).equals("Preempted"))
                  .findFirst()
                  .orElseThrow()
                  .get(5))
          .startsWith("for " + TEAM + "/" + workloadName(TEAM, "urgent"));
      assertThat(recent)
          .anySatisfy(
              r ->
                  assertThat(r.subList(1, 5))
                      .containsExactly(
                          "Admitted",
                          OTHER + "/" + workloadName(OTHER, "borrow"),
                          "dash-a",
                          "Borrowing"));
      assertThat(recent.stream().filter(r -> r.get(1).equals("Admitted"))).hasSize(3);

      // Fragmentation per block and rack: 8-GPU nodes, 3 GPUs taken on b1-r1-n1.
      assertThat(rows(page, "#topology-body table:nth-of-type(1)"))
          .containsExactly(List.of("b1", "96", "21"), List.of("b2", "32", "8"));
      assertThat(rows(page, "#topology-body table:nth-of-type(2)"))
          .containsExactly(
              List.of("b1/b1-r1", "64", "13"),
              List.of("b1/b1-r2", "32", "8"),
              List.of("b2/b2-r1", "32", "8"));
      assertThat(text(page, "#topology-body table:nth-of-type(2) caption"))
          .contains("level topology.berth.dev/rack")
          .contains("nvidia.com/gpu 13");
      // The month's budget of the team's LocalQueue, with what it used so far.
      awaitText(page, "#budgets-body", "dash-budget");
      assertThat(rows(page, "#budgets-body table"))
          .anySatisfy(
              r ->
                  assertThat(List.of(r.get(0), r.get(1), r.get(3), r.get(5), r.get(6)))
                      .containsExactly(
                          "dash-budget",
                          "LocalQueue " + TEAM + "/lq",
                          "cpu",
                          "1000",
                          "Within budget"));
      page.screenshot(WORK.resolve("admin.png"));

      // Live: a newcomer shows up without a reload.
      submit(job(OTHER, "newcomer", 1, null));
      awaitText(page, "#pending-body", "newcomer");
      assertThat(pendingRows(page)).hasSize(4);
      page.screenshot(WORK.resolve("admin-live.png"));
      assertThat(page.pageErrors()).isEmpty();
    }
  }

  @Test
  void aTeamMemberSignsInAndReachesHerPendingWorkloadsByKeyboard() throws Exception {
    try (DevTools page = chromium.newPage()) {
      page.navigate(base);
      awaitVisible(page, "#login");
      page.evaluate("document.getElementById('token').focus()");
      page.type(memberToken);
      page.press("Enter");
      awaitText(page, "#pending-body", "ExceedsMaxQuota");
      assertThat(text(page, "#who")).contains("system:serviceaccount:" + TEAM + ":dash-member");
      // Only her namespace; others' places stay (position 2 is not hers, so it is missing).
      assertThat(pendingRows(page))
          .extracting(r -> r.get(0) + " " + r.get(2))
          .containsExactly("0 low", "1 big");
      assertThat(text(page, "#queues-body")).contains("You may not list ClusterQueues");
      assertThat(text(page, "#topology-body")).contains("You may not list Topologies");
      assertThat(text(page, "#budgets-body")).contains("You may not list Budgets");
      assertThat(text(page, "#recent-body")).doesNotContain(OTHER + "/");

      // From the top of the page: Tab to the "Pending workloads" link, Enter, Tab, Enter.
      page.evaluate("document.activeElement.blur(); window.scrollTo(0, 0); true");
      String focused = "";
      for (int i = 0; i < 12 && !focused.equals("Pending workloads"); i++) {
        page.press("Tab");
        focused = page.evaluate("document.activeElement.textContent.trim()").asText();
      }
      assertThat(focused)
          .as("Tab reaches the Pending workloads link")
          .isEqualTo("Pending workloads");
      page.press("Enter");
      assertThat(page.evaluate("document.activeElement.id").asText()).isEqualTo("pending-h");
      page.press("Tab");
      String low = workloadName(TEAM, "low");
      assertThat(page.evaluate("document.activeElement.textContent").asText()).isEqualTo(low);
      page.press("Enter");
      assertThat(page.evaluate("document.activeElement.getAttribute('aria-expanded')").asText())
          .isEqualTo("true");
      String controls =
          page.evaluate("document.activeElement.getAttribute('aria-controls')").asText();
      assertThat(page.evaluate("document.getElementById('" + controls + "').hidden").asBoolean())
          .isFalse();
      assertThat(page.evaluate("document.getElementById('" + controls + "').textContent").asText())
          .contains("needs cpu 4");
      // The next poll keeps the focus and the opened row.
      String stamp = text(page, "#updated");
      await().atMost(Duration.ofSeconds(20)).until(() -> !text(page, "#updated").equals(stamp));
      assertThat(page.evaluate("document.activeElement.textContent").asText()).isEqualTo(low);
      page.screenshot(WORK.resolve("team-member-keyboard.png"));

      // Signing out forgets the token and the figures.
      page.evaluate("document.getElementById('sign-out').click()");
      assertThat(page.evaluate("sessionStorage.length").asInt()).isZero();
      assertThat(text(page, "#pending-body")).isEqualTo("Signed out.");
      assertThat(page.evaluate("document.getElementById('login').hidden").asBoolean()).isFalse();
      assertThat(page.pageErrors()).isEmpty();
    }
  }

  @Test
  void theStateNeedsAnAuthenticatedTokenAndThePageAllowsNoForeignCode() throws Exception {
    HttpClient http = TestHttps.client();
    HttpResponse<String> none =
        http.send(
            HttpRequest.newBuilder(URI.create(base + "api/v1/state")).build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(none.statusCode()).isEqualTo(401);
    HttpResponse<String> bad =
        http.send(
            HttpRequest.newBuilder(URI.create(base + "api/v1/state"))
                .header("Authorization", "Bearer forged")
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(bad.statusCode()).isEqualTo(401);
    HttpResponse<String> page =
        http.send(
            HttpRequest.newBuilder(URI.create(base)).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(page.headers().firstValue("Content-Security-Policy").orElseThrow())
        .contains("default-src 'none'")
        .contains("script-src 'self'");
    HttpResponse<String> escape =
        http.send(
            HttpRequest.newBuilder(
                    URI.create(base + "..%2F..%2Fdev%2Fberth%2Foperator%2FBerthOperator.class"))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(escape.statusCode()).isEqualTo(404);
  }

  /**
   * Deliverable 6: every series the chart's Grafana dashboard queries is one this operator exports,
   * in a scrape of its metrics port after the scenario (admissions, a preemption, borrowing,
   * topology).
   */
  @Test
  void everyMetricTheGrafanaDashboardQueriesIsExported() throws Exception {
    Set<String> queried = GrafanaDashboardQueries.metricNames();
    assertThat(queried)
        .contains(
            "berth_admitted_workloads_total",
            "berth_preempted_workloads_total",
            "berth_topology_largest_gang_pods",
            "berth_write_pool_sending_seconds_total",
            "berth_write_pool_throttled_seconds_total");
    Pattern series = Pattern.compile("^(berth_[a-zA-Z0-9_]+)[{ ]", Pattern.MULTILINE);
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () -> {
              String scrape =
                  HttpClient.newHttpClient()
                      .send(
                          HttpRequest.newBuilder(
                                  URI.create(
                                      "http://127.0.0.1:" + operator.metricsPort() + "/metrics"))
                              .build(),
                          HttpResponse.BodyHandlers.ofString())
                      .body();
              Set<String> exported = new TreeSet<>();
              Matcher m = series.matcher(scrape);
              while (m.find()) {
                exported.add(m.group(1));
              }
              assertThat(exported).containsAll(queried);
            });
  }

  // ---------------------------------------------------------------- the scenario

  private static void topology() {
    for (String host : List.of("b1-r1-n1", "b1-r1-n2", "b1-r2-n1", "b2-r1-n1")) {
      String[] parts = host.split("-");
      node(parts[0], parts[0] + "-" + parts[1], host);
    }
    Topology topology = new Topology();
    topology.getMetadata().setName("dash-dc");
    topology.setSpec(new TopologySpec());
    topology.getSpec().levels =
        List.of(
            new TopologySpec.TopologyLevel("topology.berth.dev/block"),
            new TopologySpec.TopologyLevel("topology.berth.dev/rack"),
            new TopologySpec.TopologyLevel("kubernetes.io/hostname"));
    admin.resource(topology).create();
    var flavor = ScenarioObjects.flavor("dash-h100", Map.of("gpu", "h100"));
    flavor.getSpec().topologyName = "dash-dc";
    admin.resource(flavor).create();
    // Not Berth's: bound by "the scheduler", 3 of b1-r1-n1's 8 GPUs.
    admin
        .resource(
            new PodBuilder()
                .withNewMetadata()
                .withNamespace(OTHER)
                .withName("foreign")
                .endMetadata()
                .withNewSpec()
                .withNodeName("b1-r1-n1")
                .addNewContainer()
                .withName("c")
                .withImage("busybox")
                .withNewResources()
                .addToRequests(GPU, new Quantity("3"))
                .addToLimits(GPU, new Quantity("3"))
                .endResources()
                .endContainer()
                .endSpec()
                .build())
        .create();
  }

  private static void node(String block, String rack, String host) {
    admin
        .resource(
            new NodeBuilder()
                .withNewMetadata()
                .withName(host)
                .addToLabels(
                    Map.of(
                        "topology.berth.dev/block",
                        block,
                        "topology.berth.dev/rack",
                        rack,
                        "kubernetes.io/hostname",
                        host,
                        "gpu",
                        "h100"))
                .endMetadata()
                .withNewSpec()
                .endSpec()
                .build())
        .create();
    admin
        .nodes()
        .withName(host)
        .editStatus(
            n -> {
              n.setStatus(
                  new NodeStatusBuilder()
                      .addToAllocatable(GPU, new Quantity("8"))
                      .addToAllocatable("cpu", new Quantity("32"))
                      .addNewCondition()
                      .withType("Ready")
                      .withStatus("True")
                      .endCondition()
                      .build());
              return n;
            });
    // The API server taints a new node not-ready; no node lifecycle controller runs here.
    admin
        .nodes()
        .withName(host)
        .edit(
            n -> {
              n.getSpec().setTaints(null);
              return n;
            });
  }

  private static void queues() {
    admin.resource(ScenarioObjects.flavor("dash-cpu", Map.of())).create();
    ClusterQueue a = ScenarioObjects.clusterQueue("dash-a", "dash-cpu", "cpu", "4");
    a.getSpec().cohortName = "dash-cohort";
    ScenarioObjects.quota(a).borrowingLimit = new Quantity("2");
    a.getSpec().preemption = new ClusterQueuePreemption();
    a.getSpec().preemption.withinClusterQueue =
        ClusterQueuePreemption.WithinClusterQueue.LowerPriority;
    admin.resource(a).create();
    ClusterQueue b = ScenarioObjects.clusterQueue("dash-b", "dash-cpu", "cpu", "2");
    b.getSpec().cohortName = "dash-cohort";
    admin.resource(b).create();
    admin.resource(ScenarioObjects.localQueue(TEAM, "lq", "dash-a")).create();
    admin.resource(ScenarioObjects.localQueue(OTHER, "lq", "dash-a")).create();
    priorityClass("dash-low", 10);
    priorityClass("dash-high", 1000);
    admin
        .resource(
            Budgets.named("dash-budget")
                .localQueue(TEAM, "lq")
                .monthly("UTC")
                .hours("cpu", "1000")
                .build())
        .create();
  }

  private static void submitScenario() {
    submit(job(TEAM, "low", 4, "dash-low"));
    awaitRunning(TEAM, "low");
    submit(job(TEAM, "urgent", 4, "dash-high"));
    awaitRunning(TEAM, "urgent");
    await().atMost(Duration.ofSeconds(30)).until(() -> !running(TEAM, "low"));
    submit(job(OTHER, "borrow", 2, null));
    awaitRunning(OTHER, "borrow");
    submit(job(TEAM, "big", 8, null));
    submit(job(OTHER, "later", 1, null));
  }

  private static void priorityClass(String name, int value) {
    WorkloadPriorityClass wpc = new WorkloadPriorityClass();
    wpc.getMetadata().setName(name);
    wpc.setValue(value);
    admin.resource(wpc).create();
  }

  private static Job job(String namespace, String name, int cpu, String priorityClass) {
    Job job = ScenarioObjects.job(namespace, name, "lq", 1, String.valueOf(cpu));
    if (priorityClass != null) {
      job.getMetadata().getLabels().put("berth.dev/priority-class", priorityClass);
    }
    return job;
  }

  /** Submits and waits for the Workload, then for the next second (creation order is FIFO). */
  private static void submit(Job job) {
    Job created = admin.resource(job).create();
    String namespace = job.getMetadata().getNamespace();
    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> workloadName(namespace, job.getMetadata().getName()) != null);
    var next = java.time.Instant.parse(created.getMetadata().getCreationTimestamp()).plusSeconds(1);
    await().atMost(Duration.ofSeconds(3)).until(() -> java.time.Instant.now().isAfter(next));
  }

  private static String workloadName(String namespace, String job) {
    return admin
        .resources(dev.berth.api.v1beta1.Workload.class)
        .inNamespace(namespace)
        .list()
        .getItems()
        .stream()
        .filter(
            w ->
                w.getMetadata().getOwnerReferences() != null
                    && w.getMetadata().getOwnerReferences().stream()
                        .anyMatch(o -> o.getName().equals(job)))
        .map(w -> w.getMetadata().getName())
        .findFirst()
        .orElse(null);
  }

  private static boolean running(String namespace, String name) {
    Job job = admin.batch().v1().jobs().inNamespace(namespace).withName(name).get();
    return job != null && Boolean.FALSE.equals(job.getSpec().getSuspend());
  }

  private static void awaitRunning(String namespace, String name) {
    await().atMost(Duration.ofSeconds(30)).until(() -> running(namespace, name));
  }

  private static String clusterAdminToken() {
    serviceAccount("berth-system", "dash-admin");
    admin
        .rbac()
        .clusterRoleBindings()
        .resource(
            new ClusterRoleBindingBuilder()
                .withNewMetadata()
                .withName("dash-admin")
                .endMetadata()
                .withNewRoleRef("rbac.authorization.k8s.io", "ClusterRole", "cluster-admin")
                .addNewSubject()
                .withKind("ServiceAccount")
                .withName("dash-admin")
                .withNamespace("berth-system")
                .endSubject()
                .build())
        .create();
    return token("berth-system", "dash-admin");
  }

  /** Lists Workloads in dash-team only, as the chart's batch-user role lets her. */
  private static String teamMemberToken() {
    serviceAccount(TEAM, "dash-member");
    admin
        .rbac()
        .clusterRoles()
        .resource(
            new ClusterRoleBuilder()
                .withNewMetadata()
                .withName("dash-workload-reader")
                .endMetadata()
                .addNewRule()
                .withApiGroups("berth.dev")
                .withResources("workloads", "localqueues")
                .withVerbs("get", "list", "watch")
                .endRule()
                .build())
        .create();
    admin
        .rbac()
        .roleBindings()
        .inNamespace(TEAM)
        .resource(
            new RoleBindingBuilder()
                .withNewMetadata()
                .withName("dash-member-reads")
                .withNamespace(TEAM)
                .endMetadata()
                .withNewRoleRef("rbac.authorization.k8s.io", "ClusterRole", "dash-workload-reader")
                .addNewSubject()
                .withKind("ServiceAccount")
                .withName("dash-member")
                .withNamespace(TEAM)
                .endSubject()
                .build())
        .create();
    return token(TEAM, "dash-member");
  }

  private static void serviceAccount(String namespace, String name) {
    admin
        .serviceAccounts()
        .inNamespace(namespace)
        .resource(
            new ServiceAccountBuilder()
                .withNewMetadata()
                .withName(name)
                .withNamespace(namespace)
                .endMetadata()
                .build())
        .create();
  }

  private static String token(String namespace, String name) {
    return admin
        .serviceAccounts()
        .inNamespace(namespace)
        .withName(name)
        .tokenRequest(
            new TokenRequestBuilder().withNewSpec().withExpirationSeconds(3600L).endSpec().build())
        .getStatus()
        .getToken();
  }

  // ---------------------------------------------------------------- reading the page

  private static String text(DevTools page, String selector) {
    return page.evaluate(
            "(document.querySelector(" + js(selector) + ") || {}).textContent" + " || ''")
        .asText();
  }

  private static void awaitText(DevTools page, String selector, String expected) {
    await()
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(500))
        .until(() -> text(page, selector).contains(expected));
  }

  private static void awaitVisible(DevTools page, String selector) {
    await()
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(500))
        .until(
            () ->
                // Not there yet (the page still loading) is not visible yet, not an error.
                page.evaluate(
                        "(e => !!e && !e.hidden)(document.querySelector(" + js(selector) + "))")
                    .asBoolean());
  }

  /** The body rows of a table, each cell's text. */
  private static List<List<String>> rows(DevTools page, String tableSelector) {
    JsonNode rows =
        page.evaluate(
            "Array.from(document.querySelectorAll("
                + js(tableSelector + " tbody tr")
                + ")).filter(r => !r.hidden)"
                + ".map(r => Array.from(r.cells).map(c => c.textContent.trim()))");
    List<List<String>> out = new java.util.ArrayList<>();
    for (JsonNode r : rows) {
      List<String> cells = new java.util.ArrayList<>();
      r.forEach(c -> cells.add(c.asText()));
      out.add(cells);
    }
    return out;
  }

  /** Pending rows of dash-a without the hidden message rows; the workload name's job part. */
  private static List<List<String>> pendingRows(DevTools page) {
    List<List<String>> out = new java.util.ArrayList<>();
    for (List<String> r : rows(page, "#pending-body table")) {
      if (r.size() < 8) {
        continue;
      }
      List<String> row = new java.util.ArrayList<>(r);
      row.set(2, jobOf(row.get(3), row.get(2)));
      out.add(row);
    }
    return out;
  }

  /** The Job a Workload name belongs to (job-NAME-hash). */
  private static String jobOf(String namespace, String workload) {
    for (String job : List.of("low", "urgent", "borrow", "big", "later", "newcomer")) {
      if (workload.equals(workloadName(namespace, job))) {
        return job;
      }
    }
    return workload;
  }

  private static String js(String text) {
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'";
  }
}
