package dev.berth.e2e.webhook;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.berth.api.v1beta1.Admission;
import dev.berth.api.v1beta1.AdmissionCheck;
import dev.berth.api.v1beta1.AdmissionCheckStatus;
import dev.berth.api.v1beta1.Condition;
import dev.berth.api.v1beta1.PodSetAssignment;
import dev.berth.api.v1beta1.Workload;
import dev.berth.api.v1beta1.WorkloadStatus;
import dev.berth.api.v1beta1.WorkloadStatus.AdmissionCheckState;
import dev.berth.e2e.chart.ChartRoles;
import dev.berth.webhook.authz.CachedGrants;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * An admission-check controller as the chart lets a cluster set one up: a ServiceAccount bound to
 * the chart's {@code berth-admission-check-writer} ClusterRole (rendered from the chart by helm),
 * against a real API server with the chart's own webhook configurations (WebhookTestCluster
 * registers what {@code helm template} renders), granted its check by the chart's {@code
 * rbac.checkControllers} role. The writer role may write {@code workloads/status}; the chart's
 * status guard ({@code vworkload-status.berth.dev}) must confine it to the states of the checks the
 * operator listed and it is granted. Every forgery is DENIED by the API server naming the field,
 * and the stored Workload is unchanged (same resourceVersion, same status); the controller's own
 * write of its check's state goes through.
 */
class AdmissionCheckWriterIT {
  static final String NS = "check-writer";
  static final String CONTROLLER_NS = "capacity-system";
  static final String CONTROLLER = "capacity-provisioner";
  static final String IDENTITY = "system:serviceaccount:" + CONTROLLER_NS + ":" + CONTROLLER;

  /** Bound to the writer role like the controller, but granted no check. */
  static final String UNGRANTED = "ungranted-controller";

  /** Granted the capacity check during a test, then the grant is revoked. */
  static final String LATECOMER = "latecomer-controller";

  /** The chart's role for rbac.checkControllers[name=capacity]. */
  static final String CHECK_ROLE = "berth-check-capacity";

  static final String AT = "2026-01-01T00:00:00Z";

  private static KubernetesClient operator;
  private static KubernetesClient controller;
  private static KubernetesClient ungranted;
  private static KubernetesClient latecomer;

  @BeforeAll
  static void setUp() {
    WebhookTestCluster cluster = WebhookTestCluster.get();
    operator = cluster.admin();
    for (String ns : List.of(NS, CONTROLLER_NS)) {
      operator
          .namespaces()
          .resource(new NamespaceBuilder().withNewMetadata().withName(ns).endMetadata().build())
          .serverSideApply();
    }
    // What an admin installs: the chart with this controller listed in rbac.checkControllers,
    // granted the "capacity" check and nothing else.
    String[] values = {
      "--set-json",
      "rbac.checkControllers=[{\"name\":\"capacity\",\"checks\":[\"capacity\"],"
          + "\"serviceAccount\":{\"namespace\":\""
          + CONTROLLER_NS
          + "\",\"name\":\""
          + CONTROLLER
          + "\"}}]"
    };
    for (String role : List.of("berth-admission-check-writer", CHECK_ROLE)) {
      GenericKubernetesResource r =
          ChartRoles.rendered("ClusterRole", "berth", "berth-system", values).stream()
              .filter(o -> o.getMetadata().getName().equals(role))
              .findFirst()
              .orElseThrow(() -> new AssertionError("the chart renders no ClusterRole " + role));
      operator.resource(r).serverSideApply();
    }
    GenericKubernetesResource checkBinding =
        ChartRoles.rendered("ClusterRoleBinding", "berth", "berth-system", values).stream()
            .filter(o -> o.getMetadata().getName().equals(CHECK_ROLE))
            .findFirst()
            .orElseThrow(() -> new AssertionError("the chart binds no one to " + CHECK_ROLE));
    operator.resource(checkBinding).serverSideApply();
    for (String sa : List.of(CONTROLLER, UNGRANTED, LATECOMER)) {
      serviceAccount(sa);
      // The docs bind the aggregating role; this API server runs no controller manager to
      // aggregate, so the ServiceAccount is bound to the one role it aggregates, the chart's.
      bind(sa, sa, "berth-admission-check-writer");
    }
    controller = cluster.impersonating(IDENTITY);
    ungranted = cluster.impersonating(identity(UNGRANTED));
    latecomer = cluster.impersonating(identity(LATECOMER));
  }

  private static String identity(String serviceAccount) {
    return "system:serviceaccount:" + CONTROLLER_NS + ":" + serviceAccount;
  }

  private static void serviceAccount(String name) {
    operator
        .serviceAccounts()
        .inNamespace(CONTROLLER_NS)
        .resource(
            new ServiceAccountBuilder()
                .withNewMetadata()
                .withName(name)
                .withNamespace(CONTROLLER_NS)
                .endMetadata()
                .build())
        .serverSideApply();
  }

  private static void bind(String binding, String serviceAccount, String clusterRole) {
    operator
        .rbac()
        .clusterRoleBindings()
        .resource(
            new ClusterRoleBindingBuilder()
                .withNewMetadata()
                .withName(binding)
                .endMetadata()
                .withNewRoleRef("rbac.authorization.k8s.io", "ClusterRole", clusterRole)
                .addNewSubject()
                .withKind("ServiceAccount")
                .withName(serviceAccount)
                .withNamespace(CONTROLLER_NS)
                .endSubject()
                .build())
        .serverSideApply();
  }

  /**
   * The reproduction: {@code kubectl patch --subresource=status} writing an admission on a
   * pending Workload. The role passes RBAC (the denial comes from the webhook, which runs after
   * authorization); the chart's status guard refuses it.
   */
  @Test
  void anAdmissionWrittenOnAPendingWorkloadIsDenied() {
    Workload wl = pending("pending-admission");
    String patch =
        """
        {"status": {
          "admission": {"clusterQueue": "cq",
            "podSetAssignments": [{"name": "main", "count": 2, "flavors": {"cpu": "default"}}]},
          "conditions": [{"type": "QuotaReserved", "status": "True", "reason": "QuotaReserved",
            "message": "forged", "lastTransitionTime": "%s"}]}}
        """
            .formatted(AT);
    assertDenied(
        wl,
        () -> mergePatch(wl.getMetadata().getName(), patch),
        "status.admission",
        "only the Berth operator may write a Workload's admission",
        "status.conditions",
        "QuotaReserved");
  }

  @Test
  void quotaReservedCannotBeSetOnAPendingWorkload() {
    Workload wl = pending("pending-quota");
    assertDenied(
        wl,
        () ->
            edit(
                wl,
                s ->
                    s.conditions =
                        List.of(condition("QuotaReserved", "True", "QuotaReserved", "forged"))),
        "status.conditions",
        "only the Berth operator may set or clear the QuotaReserved condition");
  }

  @Test
  void admittedCannotBeSetWhileChecksArePending() {
    Workload wl = reserved("admit-forged");
    assertDenied(
        wl,
        () ->
            edit(
                wl,
                s -> {
                  s.conditions.removeIf(c -> c.type.equals("Admitted"));
                  s.conditions.add(condition("Admitted", "True", "Admitted", "forged"));
                  s.admissionChecks.forEach(c -> c.state = "Ready");
                }),
        "status.conditions",
        "only the Berth operator may set or clear the Admitted condition");
  }

  @Test
  void quotaReservedCannotBeCleared() {
    Workload wl = reserved("unreserve-forged");
    assertDenied(
        wl,
        () ->
            edit(
                wl,
                s -> {
                  s.conditions.removeIf(c -> c.type.equals("QuotaReserved"));
                  s.conditions.add(condition("QuotaReserved", "False", "Pending", "forged"));
                }),
        "status.conditions",
        "QuotaReserved");
  }

  @Test
  void theAdmissionCannotBeChangedOrRemoved() {
    Workload wl = reserved("move-forged");
    assertDenied(
        wl,
        () -> edit(wl, s -> s.admission.podSetAssignments.get(0).flavors = Map.of("cpu", "spot")),
        "status.admission",
        "only the Berth operator may write a Workload's admission");
    assertDenied(
        wl,
        () -> mergePatch(wl.getMetadata().getName(), "{\"status\":{\"admission\":null}}"),
        "status.admission");
  }

  /** Which checks apply is the operator's decision: no entry may be added, none removed. */
  @Test
  void checksTheOperatorDidNotListCannotBeAddedOrRemoved() {
    Workload wl = reserved("checks-forged");
    assertDenied(
        wl,
        () ->
            edit(
                wl,
                s ->
                    s.admissionChecks.add(new AdmissionCheckState("other", "Ready", "forged", AT))),
        "status.admissionChecks",
        "not add or remove checks");
    assertDenied(
        wl,
        () -> edit(wl, s -> s.admissionChecks.removeIf(c -> c.name.equals("budget"))),
        "status.admissionChecks",
        "not add or remove checks");
    assertDenied(
        wl,
        () ->
            edit(
                wl,
                s -> {
                  // Renaming a listed check into one that is not listed is the same forgery.
                  s.admissionChecks.get(1).name = "other";
                  s.admissionChecks.get(1).state = "Ready";
                }),
        "status.admissionChecks",
        "not add or remove checks");
  }

  @Test
  void theControllerWritesItsChecksStateAndNothingElseChanges() {
    Workload wl = reserved("legit");
    Workload stored =
        edit(
            wl,
            s -> {
              AdmissionCheckState capacity = s.admissionChecks.get(0);
              capacity.state = "Ready";
              capacity.message = "4 nodes provisioned";
              capacity.lastTransitionTime = "2026-01-01T00:01:00Z";
            });
    AdmissionCheckState capacity = stored.getStatus().admissionChecks.get(0);
    assertThat(capacity.name).isEqualTo("capacity");
    assertThat(capacity.state).isEqualTo("Ready");
    assertThat(capacity.message).isEqualTo("4 nodes provisioned");
    assertThat(stored.getStatus().admissionChecks.get(1).state).isEqualTo("Pending");
    assertThat(json(stored.getStatus().admission)).isEqualTo(json(wl.getStatus().admission));
    assertThat(json(stored.getStatus().conditions)).isEqualTo(json(wl.getStatus().conditions));
    // A merge patch of the same kind, as kubectl sends it: Retry with a message.
    mergePatch(
        "legit",
        """
        {"status": {"admissionChecks": [
          {"name": "capacity", "state": "Retry", "message": "spot capacity gone",
           "lastTransitionTime": "2026-01-01T00:02:00Z"},
          {"name": "budget", "state": "Pending", "lastTransitionTime": "%s"}]}}
        """
            .formatted(AT));
    assertThat(read("legit").getStatus().admissionChecks.get(0).state).isEqualTo("Retry");
  }

  /**
   * Granted "capacity" only: the state of the other listed check ("budget", another team's gate) is
   * not the controller's to write, whether alone or together with its own check's state.
   */
  @Test
  void anotherChecksStateIsDeniedNamingItsField() {
    Workload wl = reserved("other-check");
    assertDenied(
        wl,
        () -> edit(wl, s -> s.admissionChecks.get(1).state = "Ready"),
        "status.admissionChecks[1].state",
        "may not write the state of admission check \"budget\"",
        "\"update-state\" on admissionchecks.berth.dev \"budget\"");
    assertDenied(
        wl,
        () ->
            mergePatch(
                "other-check",
                """
                {"status": {"admissionChecks": [
                  {"name": "capacity", "state": "Ready", "lastTransitionTime": "%s"},
                  {"name": "budget", "state": "Rejected", "message": "over budget",
                   "lastTransitionTime": "2026-01-01T00:03:00Z"}]}}
                """
                    .formatted(AT)),
        "status.admissionChecks[1].state",
        "admission check \"budget\"",
        "changed: state, message, lastTransitionTime");
    assertDenied(
        wl,
        () -> edit(wl, s -> s.admissionChecks.get(1).message = "approved, honest"),
        "status.admissionChecks[1].message",
        "admission check \"budget\"");
  }

  /** Bound to the writer role without a grant: not even the check it runs is its to write. */
  @Test
  void withoutAGrantNoChecksStateIsWritten() {
    Workload wl = reserved("ungranted");
    assertDenied(
        identity(UNGRANTED),
        wl,
        () -> edit(ungranted, wl, s -> s.admissionChecks.get(0).state = "Ready"),
        "status.admissionChecks[0].state",
        "admission check \"capacity\"");
  }

  /**
   * A grant works from the moment RBAC has it (refusals are never remembered); a revoked grant
   * stops working within the webhook's stated bound (CachedGrants.DEFAULT_TTL).
   */
  @Test
  void aGrantTakesEffectAtOnceAndItsRevocationWithinTheTtl() {
    Workload wl = reserved("latecomer");
    assertDenied(
        identity(LATECOMER),
        wl,
        () -> edit(latecomer, wl, s -> s.admissionChecks.get(0).message = "before the grant"),
        "status.admissionChecks[0].message",
        "admission check \"capacity\"");
    bind("latecomer-capacity", LATECOMER, CHECK_ROLE);
    AtomicInteger n = new AtomicInteger();
    // RBAC's informer learns the binding within moments; the webhook asks again every time.
    await()
        .atMost(Duration.ofSeconds(5))
        .ignoreException(KubernetesClientException.class)
        .until(
            () ->
                edit(
                        latecomer,
                        wl,
                        s -> s.admissionChecks.get(0).message = "granted " + n.incrementAndGet())
                    != null);
    assertThat(read("latecomer").getStatus().admissionChecks.get(0).message).startsWith("granted");

    operator.rbac().clusterRoleBindings().withName("latecomer-capacity").delete();
    long revoked = System.nanoTime();
    await()
        .atMost(CachedGrants.DEFAULT_TTL.plus(Duration.ofSeconds(5)))
        .pollInterval(Duration.ofMillis(500))
        .until(
            () -> {
              try {
                edit(
                    latecomer,
                    wl,
                    s -> s.admissionChecks.get(0).message = "still " + n.incrementAndGet());
                return false;
              } catch (KubernetesClientException e) {
                assertThat(e.getMessage())
                    .contains("vworkload-status.berth.dev")
                    .contains("status.admissionChecks[0].message");
                return true;
              }
            });
    System.out.printf(
        "[check-writer] revoked grant refused after %d ms%n",
        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - revoked));
    Workload before = read("latecomer");
    assertDenied(
        identity(LATECOMER),
        before,
        () -> edit(latecomer, before, s -> s.admissionChecks.get(0).state = "Ready"),
        "status.admissionChecks[0].state");
  }

  /**
   * Marking an AdmissionCheck Active is granted per check too, by RBAC itself (resourceNames on
   * {@code admissionchecks/status} in the chart's per-controller role): a controller that could
   * mark another team's check inactive would hold that team's workloads.
   */
  @Test
  void onlyItsOwnAdmissionCheckIsMarkedActive() {
    for (String check : List.of("capacity", "budget")) {
      operator
          .resource(
              Serialization.unmarshal(
                  """
                  apiVersion: berth.dev/v1beta1
                  kind: AdmissionCheck
                  metadata: {name: %s}
                  spec: {controllerName: example.com/%s}
                  """
                      .formatted(check, check),
                  AdmissionCheck.class))
          .serverSideApply();
    }
    AdmissionCheck own = markActive("capacity");
    assertThat(own.getStatus().conditions).extracting(c -> c.type).containsExactly("Active");
    String before =
        operator
            .resources(AdmissionCheck.class)
            .withName("budget")
            .get()
            .getMetadata()
            .getResourceVersion();
    assertThatThrownBy(() -> markActive("budget"))
        .isInstanceOf(KubernetesClientException.class)
        .satisfies(e -> assertThat(((KubernetesClientException) e).getCode()).isEqualTo(403))
        .hasMessageContaining("admissionchecks.berth.dev \"budget\" is forbidden")
        .hasMessageContaining(IDENTITY);
    AdmissionCheck budget = operator.resources(AdmissionCheck.class).withName("budget").get();
    assertThat(budget.getMetadata().getResourceVersion()).isEqualTo(before);
    assertThat(budget.getStatus() == null ? null : budget.getStatus().conditions).isNullOrEmpty();
  }

  private static AdmissionCheck markActive(String check) {
    return controller
        .resources(AdmissionCheck.class)
        .withName(check)
        .editStatus(
            ac -> {
              ac.setStatus(new AdmissionCheckStatus());
              Condition active = new Condition("Active", "True", "Active", "controller runs");
              active.lastTransitionTime = AT;
              ac.getStatus().conditions = new ArrayList<>(List.of(active));
              return ac;
            });
  }

  /**
   * The forgery is refused by the chart's status guard (not by RBAC or the schema), the message
   * names the field, and the stored Workload is exactly as before.
   */
  private static void assertDenied(Workload wl, Runnable forgery, String field, String... words) {
    assertDenied(IDENTITY, wl, forgery, field, words);
  }

  private static void assertDenied(
      String identity, Workload wl, Runnable forgery, String field, String... words) {
    Workload before = read(wl.getMetadata().getName());
    assertThatThrownBy(forgery::run)
        .isInstanceOf(KubernetesClientException.class)
        .hasMessageContaining("vworkload-status.berth.dev")
        .hasMessageContaining("denied the request")
        .hasMessageContaining(field)
        .hasMessageContaining(identity)
        .satisfies(
            e -> {
              for (String word : words) {
                assertThat(e.getMessage()).contains(word);
              }
            });
    Workload after = read(wl.getMetadata().getName());
    assertThat(after.getMetadata().getResourceVersion())
        .isEqualTo(before.getMetadata().getResourceVersion());
    assertThat(json(after.getStatus())).isEqualTo(json(before.getStatus()));
  }

  private static Workload edit(Workload wl, Consumer<WorkloadStatus> change) {
    return edit(controller, wl, change);
  }

  private static Workload edit(KubernetesClient as, Workload wl, Consumer<WorkloadStatus> change) {
    return as.resources(Workload.class)
        .inNamespace(NS)
        .withName(wl.getMetadata().getName())
        .editStatus(
            w -> {
              if (w.getStatus() == null) {
                w.setStatus(new WorkloadStatus()); // a Workload nobody has written status for
              }
              change.accept(w.getStatus());
              return w;
            });
  }

  /** A JSON merge patch of the status subresource: {@code kubectl patch --subresource=status}. */
  private static void mergePatch(String name, String patch) {
    controller
        .resources(Workload.class)
        .inNamespace(NS)
        .withName(name)
        .subresource("status")
        .patch(PatchContext.of(PatchType.JSON_MERGE), patch);
  }

  private static Workload read(String name) {
    return operator.resources(Workload.class).inNamespace(NS).withName(name).get();
  }

  private static Workload pending(String name) {
    return operator
        .resources(Workload.class)
        .inNamespace(NS)
        .resource(
            Serialization.unmarshal(
                """
                apiVersion: berth.dev/v1beta1
                kind: Workload
                metadata: {name: %s, namespace: %s}
                spec:
                  queueName: team-a
                  podSets:
                  - name: main
                    count: 2
                    template: {spec: {containers: [{name: c, image: trainer:1}]}}
                """
                    .formatted(name, NS),
                Workload.class))
        .create();
  }

  /**
   * A Workload the operator (the admin client's identity) reserved quota for, waiting for two
   * checks, as the operator writes it at reservation.
   */
  private static Workload reserved(String name) {
    Workload wl = pending(name);
    WorkloadStatus status = new WorkloadStatus();
    Admission admission = new Admission();
    admission.clusterQueue = "cq";
    PodSetAssignment main = new PodSetAssignment();
    main.name = "main";
    main.count = 2;
    main.flavors = Map.of("cpu", "default");
    admission.podSetAssignments = List.of(main);
    status.admission = admission;
    status.conditions =
        new ArrayList<>(
            List.of(
                condition("QuotaReserved", "True", "QuotaReserved", "Quota reserved in cq"),
                condition(
                    "Admitted",
                    "False",
                    "WaitingForAdmissionChecks",
                    "waiting for admission checks: capacity, budget")));
    status.admissionChecks =
        new ArrayList<>(
            List.of(
                new AdmissionCheckState("capacity", "Pending", null, AT),
                new AdmissionCheckState("budget", "Pending", null, AT)));
    wl.setStatus(status);
    Workload stored =
        operator.resources(Workload.class).inNamespace(NS).resource(wl).updateStatus();
    assertThat(stored.getStatus().admissionChecks).hasSize(2);
    return stored;
  }

  private static Condition condition(String type, String status, String reason, String message) {
    Condition c = new Condition(type, status, reason, message);
    c.lastTransitionTime = AT;
    return c;
  }

  private static JsonNode json(Object o) {
    return Serialization.jsonMapper().valueToTree(o);
  }
}
