package dev.berth.e2e.webhook;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.berth.api.v1beta1.Admission;
import dev.berth.api.v1beta1.Condition;
import dev.berth.api.v1beta1.PodSetAssignment;
import dev.berth.api.v1beta1.Workload;
import dev.berth.api.v1beta1.WorkloadStatus;
import dev.berth.api.v1beta1.WorkloadStatus.AdmissionCheckState;
import dev.berth.e2e.chart.ChartRoles;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * An admission-check controller as the chart lets a cluster set one up: a ServiceAccount bound to
 * the chart's {@code berth-admission-check-writer} ClusterRole (rendered from the chart by helm),
 * against a real API server with the chart's own webhook configurations (WebhookTestCluster
 * registers what {@code helm template} renders). The role may write {@code workloads/status}; the
 * chart's status guard ({@code vworkload-status.berth.dev}) must confine it to the states of the
 * checks the operator listed. Every forgery is DENIED by the API server naming the field, and the
 * stored Workload is unchanged (same resourceVersion, same status); the controller's own write of
 * its check's state goes through.
 */
class AdmissionCheckWriterIT {
  static final String NS = "check-writer";
  static final String CONTROLLER_NS = "capacity-system";
  static final String CONTROLLER = "capacity-provisioner";
  static final String IDENTITY = "system:serviceaccount:" + CONTROLLER_NS + ":" + CONTROLLER;
  static final String AT = "2026-01-01T00:00:00Z";

  private static KubernetesClient operator;
  private static KubernetesClient controller;

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
    operator
        .serviceAccounts()
        .inNamespace(CONTROLLER_NS)
        .resource(
            new ServiceAccountBuilder()
                .withNewMetadata()
                .withName(CONTROLLER)
                .withNamespace(CONTROLLER_NS)
                .endMetadata()
                .build())
        .serverSideApply();
    GenericKubernetesResource writer =
        ChartRoles.clusterRoles("berth", "berth-system").stream()
            .filter(r -> r.getMetadata().getName().equals("berth-admission-check-writer"))
            .findFirst()
            .orElseThrow(() -> new AssertionError("the chart has no admission-check-writer"));
    writer.getMetadata().setResourceVersion(null);
    operator.resource(writer).serverSideApply();
    // The docs bind the aggregating role; this API server runs no controller manager to
    // aggregate, so the ServiceAccount is bound to the one role it aggregates, the chart's.
    operator
        .rbac()
        .clusterRoleBindings()
        .resource(
            new ClusterRoleBindingBuilder()
                .withNewMetadata()
                .withName(CONTROLLER)
                .endMetadata()
                .withNewRoleRef(
                    "rbac.authorization.k8s.io", "ClusterRole", "berth-admission-check-writer")
                .addNewSubject()
                .withKind("ServiceAccount")
                .withName(CONTROLLER)
                .withNamespace(CONTROLLER_NS)
                .endSubject()
                .build())
        .serverSideApply();
    controller = cluster.impersonating(IDENTITY);
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
   * The forgery is refused by the chart's status guard (not by RBAC or the schema), the message
   * names the field, and the stored Workload is exactly as before.
   */
  private static void assertDenied(Workload wl, Runnable forgery, String field, String... words) {
    Workload before = read(wl.getMetadata().getName());
    assertThatThrownBy(forgery::run)
        .isInstanceOf(KubernetesClientException.class)
        .hasMessageContaining("vworkload-status.berth.dev")
        .hasMessageContaining("denied the request")
        .hasMessageContaining(field)
        .hasMessageContaining(IDENTITY)
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
    return controller
        .resources(Workload.class)
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
