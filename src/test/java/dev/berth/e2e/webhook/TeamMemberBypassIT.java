package dev.berth.e2e.webhook;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.berth.api.v1beta1.Berth;
import dev.berth.e2e.chart.ChartRoles;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.rbac.RoleBindingBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * Every way around the queue a team member has, tried as one: a user bound in its namespace to the
 * built-in {@code edit} role and to the chart's {@code berth-batch-user} role (rendered from the
 * chart by helm), against a real API server with Berth's webhooks. Each bypass must be DENIED by
 * the API server with a message naming the field, and the stored object must be unchanged
 * afterwards; the operator identity, legitimate use, and namespaces Berth does not manage must be
 * unaffected.
 */
class TeamMemberBypassIT {
  /** Selected by ClusterQueue bypass-cq (label berth.dev/team: bypass), LocalQueues a and b. */
  static final String MANAGED = "bypass-team";

  /** No ClusterQueue selects it; it has a LocalQueue named default. */
  static final String DEFAULTED = "bypass-default";

  /** No ClusterQueue selects it, no default LocalQueue: only labelled Jobs are Berth's. */
  static final String FREE = "bypass-free";

  static final String MEMBER = "dana";
  private static final String QUEUE = "metadata.labels[" + Berth.QUEUE_NAME_LABEL + "]";

  private static WebhookTestCluster cluster;
  private static KubernetesClient operator;
  private static KubernetesClient member;

  @BeforeAll
  static void setUp() {
    cluster = WebhookTestCluster.get();
    operator = cluster.admin();
    member = cluster.impersonating(MEMBER);
    namespace(MANAGED, Map.of("berth.dev/team", "bypass"));
    namespace(DEFAULTED, Map.of());
    namespace(FREE, Map.of());
    apply(
        """
        apiVersion: berth.dev/v1beta1
        kind: ClusterQueue
        metadata: {name: bypass-cq}
        spec: {namespaceSelector: {matchLabels: {berth.dev/team: bypass}}}
        """);
    for (String lq : List.of(MANAGED + "/a", MANAGED + "/b", DEFAULTED + "/default", FREE + "/a")) {
      String[] parts = lq.split("/");
      apply(
          """
          apiVersion: berth.dev/v1beta1
          kind: LocalQueue
          metadata: {name: %s, namespace: %s}
          spec: {clusterQueue: bypass-cq}
          """
              .formatted(parts[1], parts[0]));
    }
    bindTeamMember();
    await("the webhook's caches see the queues and namespaces")
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                cluster.localQueues().managedBecause(MANAGED).isPresent()
                    && cluster.localQueues().exists(MANAGED, "b")
                    && cluster.localQueues().managedBecause(DEFAULTED).isPresent()
                    && cluster.localQueues().managedBecause(FREE).isEmpty());
  }

  /**
   * The chart's roles as helm renders them, bound as a cluster would: the namespace's {@code edit}
   * and the chart's {@code berth-batch-user}. This API server runs no controller manager, so the
   * aggregated roles stay empty; the member is bound to each role they aggregate instead, which is
   * exactly the set of rules aggregation would give it.
   */
  private static void bindTeamMember() {
    for (GenericKubernetesResource role : ChartRoles.clusterRoles("berth", "berth-system")) {
      role.getMetadata().setResourceVersion(null);
      operator.resource(role).serverSideApply();
    }
    // Stand-in for JobSet's own installation, which grants its users jobsets; this cluster has
    // only JobSet's CRD. Not one of Berth's roles: those come from the chart above.
    operator
        .rbac()
        .clusterRoles()
        .resource(
            new io.fabric8.kubernetes.api.model.rbac.ClusterRoleBuilder()
                .withNewMetadata()
                .withName("jobset-editor-stand-in")
                .endMetadata()
                .addNewRule()
                .withApiGroups("jobset.x-k8s.io")
                .withResources("jobsets")
                .withVerbs("get", "list", "watch", "create", "update", "patch", "delete")
                .endRule()
                .build())
        .serverSideApply();
    for (String ns : List.of(MANAGED, DEFAULTED, FREE)) {
      bind(ns, "jobset-editor-stand-in");
    }
    for (String aggregated : List.of("edit", "berth-batch-user")) {
      for (String role : aggregatedBy(aggregated)) {
        for (String ns : List.of(MANAGED, DEFAULTED, FREE)) {
          bind(ns, role);
        }
      }
    }
  }

  /** A RoleBinding of the member to a ClusterRole in one namespace, as a team admin writes. */
  private static void bind(String ns, String clusterRole) {
    operator
        .rbac()
        .roleBindings()
        .inNamespace(ns)
        .resource(
            new RoleBindingBuilder()
                .withNewMetadata()
                .withName(MEMBER + "-" + clusterRole.replace(':', '-'))
                .withNamespace(ns)
                .endMetadata()
                .withNewRoleRef("rbac.authorization.k8s.io", "ClusterRole", clusterRole)
                .addNewSubject()
                .withKind("User")
                .withName(MEMBER)
                .endSubject()
                .build())
        .serverSideApply();
  }

  /**
   * The ClusterRoles whose rules an aggregated ClusterRole collects by its clusterRoleSelectors,
   * through aggregated roles it selects in turn ({@code edit} selects {@code view}).
   */
  private static List<String> aggregatedBy(String name) {
    List<String> roles = new java.util.ArrayList<>();
    expand(name, roles, new java.util.HashSet<>());
    assertThat(roles).as("roles aggregated into " + name).isNotEmpty();
    return roles;
  }

  private static void expand(String name, List<String> roles, java.util.Set<String> seen) {
    if (!seen.add(name)) {
      return;
    }
    GenericKubernetesResource role =
        operator
            .genericKubernetesResources("rbac.authorization.k8s.io/v1", "ClusterRole")
            .withName(name)
            .get();
    assertThat(role).as(name).isNotNull();
    JsonNode selectors = json(role).at("/aggregationRule/clusterRoleSelectors");
    if (selectors.isMissingNode()) {
      roles.add(name);
      return;
    }
    for (JsonNode selector : selectors) {
      Map<String, String> labels = new HashMap<>();
      selector
          .path("matchLabels")
          .fields()
          .forEachRemaining(f -> labels.put(f.getKey(), f.getValue().asText()));
      operator
          .genericKubernetesResources("rbac.authorization.k8s.io/v1", "ClusterRole")
          .withLabels(labels)
          .list()
          .getItems()
          .forEach(r -> expand(r.getMetadata().getName(), roles, seen));
    }
  }

  private static void namespace(String name, Map<String, String> labels) {
    operator
        .namespaces()
        .resource(
            new NamespaceBuilder()
                .withNewMetadata()
                .withName(name)
                .withLabels(labels)
                .endMetadata()
                .build())
        .serverSideApply();
  }

  private static void apply(String yaml) {
    operator
        .resource(Serialization.unmarshal(yaml, GenericKubernetesResource.class))
        .serverSideApply();
  }

  private static JsonNode json(Object o) {
    return Serialization.jsonMapper().valueToTree(o);
  }

  // ---- Jobs ------------------------------------------------------------------------------------

  private static Job job(String ns, String name, String labels, int parallelism) {
    return Serialization.unmarshal(
        """
        apiVersion: batch/v1
        kind: Job
        metadata: {name: %s, namespace: %s, labels: {%s}}
        spec:
          suspend: true
          parallelism: %d
          completions: 8
          template:
            spec:
              restartPolicy: Never
              containers:
              - name: main
                image: trainer
                resources: {requests: {nvidia.com/gpu: "1"}, limits: {nvidia.com/gpu: "1"}}
        """
            .formatted(name, ns, labels, parallelism),
        Job.class);
  }

  private static Job createJob(String ns, String name, String labels) {
    return member.resource(job(ns, name, labels, 2)).create();
  }

  private static Job stored(String ns, String name) {
    return operator.batch().v1().jobs().inNamespace(ns).withName(name).get();
  }

  /** A JSON merge patch, as {@code kubectl patch --type merge} sends it. */
  private static void patchJob(KubernetesClient as, String ns, String name, String patch) {
    as.batch()
        .v1()
        .jobs()
        .inNamespace(ns)
        .withName(name)
        .patch(PatchContext.of(PatchType.JSON_MERGE), patch);
  }

  /** Denied by the API server (422 from the webhook), naming every given field. */
  private static void assertDenied(ThrowingCallable request, String... fields) {
    var thrown =
        assertThatThrownBy(request)
            .isInstanceOf(KubernetesClientException.class)
            .hasMessageContaining("denied the request");
    for (String field : fields) {
      thrown.hasMessageContaining(field);
    }
  }

  /** The operator starts a managed Job, as it does once its Workload is admitted. */
  private static void startAsOperator(String ns, String name) {
    patchJob(operator, ns, name, "{\"spec\": {\"suspend\": false}}");
    assertThat(stored(ns, name).getSpec().getSuspend()).isFalse();
  }

  @Nested
  class RunningJobs {
    @Test
    void growingParallelismIsDenied() {
      createJob(MANAGED, "grow", "berth.dev/queue-name: a");
      startAsOperator(MANAGED, "grow");
      assertDenied(
          () -> patchJob(member, MANAGED, "grow", "{\"spec\": {\"parallelism\": 8}}"),
          "spec.parallelism",
          "cannot change from 2 to 8");
      assertThat(stored(MANAGED, "grow").getSpec().getParallelism()).isEqualTo(2);
      assertThat(stored(MANAGED, "grow").getSpec().getSuspend()).isFalse();
    }

    @Test
    void shrinkingParallelismIsDenied() {
      createJob(MANAGED, "shrink", "berth.dev/queue-name: a");
      startAsOperator(MANAGED, "shrink");
      assertDenied(
          () -> patchJob(member, MANAGED, "shrink", "{\"spec\": {\"parallelism\": 1}}"),
          "spec.parallelism",
          "cannot change from 2 to 1");
      assertThat(stored(MANAGED, "shrink").getSpec().getParallelism()).isEqualTo(2);
    }

    @Test
    void aLabelledJobInAnUnmanagedNamespaceIsHeldToo() {
      createJob(FREE, "labelled-grow", "berth.dev/queue-name: a");
      startAsOperator(FREE, "labelled-grow");
      assertDenied(
          () -> patchJob(member, FREE, "labelled-grow", "{\"spec\": {\"parallelism\": 8}}"),
          "spec.parallelism");
    }

    @Test
    void requestsCannotGrow() {
      createJob(MANAGED, "requests", "berth.dev/queue-name: a");
      startAsOperator(MANAGED, "requests");
      // The Job API fixes a started Job's template before any webhook is asked (Berth's rule
      // says the same, and is what holds JobSets: see JobSets below).
      assertThatThrownBy(
              () ->
                  member
                      .batch()
                      .v1()
                      .jobs()
                      .inNamespace(MANAGED)
                      .withName("requests")
                      .edit(
                          j -> {
                            var resources =
                                j.getSpec()
                                    .getTemplate()
                                    .getSpec()
                                    .getContainers()
                                    .get(0)
                                    .getResources();
                            resources.getRequests().put("nvidia.com/gpu", new Quantity("8"));
                            resources.getLimits().put("nvidia.com/gpu", new Quantity("8"));
                            return j;
                          }))
          .isInstanceOf(KubernetesClientException.class)
          .hasMessageContaining("spec.template")
          .hasMessageContaining("field is immutable");
      assertThat(
              stored(MANAGED, "requests")
                  .getSpec()
                  .getTemplate()
                  .getSpec()
                  .getContainers()
                  .get(0)
                  .getResources()
                  .getRequests())
          .containsEntry("nvidia.com/gpu", new Quantity("1"));
    }

    @Test
    void theOperatorStillResizesARunningJob() {
      createJob(MANAGED, "partial", "berth.dev/queue-name: a");
      startAsOperator(MANAGED, "partial");
      patchJob(operator, MANAGED, "partial", "{\"spec\": {\"parallelism\": 1}}");
      assertThat(stored(MANAGED, "partial").getSpec().getParallelism()).isEqualTo(1);
    }
  }

  @Nested
  class SuspendedJobs {
    @Test
    void theQueueLabelCannotBeRemoved() {
      createJob(MANAGED, "unlabel", "berth.dev/queue-name: a");
      assertDenied(
          () ->
              patchJob(
                  member,
                  MANAGED,
                  "unlabel",
                  "{\"metadata\": {\"labels\": {\"berth.dev/queue-name\": null}}}"),
          QUEUE,
          "cannot be removed");
      assertThat(stored(MANAGED, "unlabel").getMetadata().getLabels())
          .containsEntry(Berth.QUEUE_NAME_LABEL, "a");
    }

    @Test
    void theQueueLabelCannotBeRemovedInAnUnmanagedNamespaceEither() {
      createJob(FREE, "unlabel", "berth.dev/queue-name: a");
      assertDenied(
          () ->
              patchJob(
                  member,
                  FREE,
                  "unlabel",
                  "{\"metadata\": {\"labels\": {\"berth.dev/queue-name\": null}}}"),
          QUEUE);
    }

    @Test
    void theDefaultQueueCannotBeShedEither() {
      // Created without a label: the default-queue webhook puts it in "default" and suspends it.
      member
          .resource(
              job(DEFAULTED, "shed", "app: x", 2)
                  .edit()
                  .editSpec()
                  .withSuspend(false)
                  .endSpec()
                  .build())
          .create();
      assertThat(stored(DEFAULTED, "shed").getMetadata().getLabels())
          .containsEntry(Berth.QUEUE_NAME_LABEL, "default");
      assertThat(stored(DEFAULTED, "shed").getSpec().getSuspend()).isTrue();
      assertDenied(
          () ->
              patchJob(
                  member,
                  DEFAULTED,
                  "shed",
                  "{\"metadata\": {\"labels\": {\"berth.dev/queue-name\": null}}}"),
          QUEUE);
      assertDenied(
          () ->
              patchJob(
                  member,
                  DEFAULTED,
                  "shed",
                  "{\"metadata\": {\"labels\": {\"berth.dev/queue-name\": null}},"
                      + " \"spec\": {\"suspend\": false}}"),
          QUEUE,
          "spec.suspend");
    }

    @Test
    void theQueueLabelMovesOnlyToAnExistingLocalQueue() {
      createJob(MANAGED, "move", "berth.dev/queue-name: a");
      assertDenied(
          () ->
              patchJob(
                  member,
                  MANAGED,
                  "move",
                  "{\"metadata\": {\"labels\": {\"berth.dev/queue-name\": \"nowhere\"}}}"),
          QUEUE,
          "has no LocalQueue \"nowhere\"");
      patchJob(
          member,
          MANAGED,
          "move",
          "{\"metadata\": {\"labels\": {\"berth.dev/queue-name\": \"b\"}}}");
      assertThat(stored(MANAGED, "move").getMetadata().getLabels())
          .containsEntry(Berth.QUEUE_NAME_LABEL, "b");
    }

    @Test
    void aUserCannotUnsuspend() {
      createJob(MANAGED, "start", "berth.dev/queue-name: a");
      assertDenied(
          () -> patchJob(member, MANAGED, "start", "{\"spec\": {\"suspend\": false}}"),
          "spec.suspend",
          "can only be unsuspended by the Berth operator",
          MEMBER);
      assertDenied(
          () -> patchJob(member, MANAGED, "start", "{\"spec\": {\"suspend\": null}}"),
          "spec.suspend");
      assertThat(stored(MANAGED, "start").getSpec().getSuspend()).isTrue();
    }

    @Test
    void aUserCannotMarkAStopRequest() {
      // The mark makes the Job controller's Suspended=True count as acknowledging Berth's
      // suspension, after which the quota is given back: a forged one could release it early.
      createJob(MANAGED, "mark", "berth.dev/queue-name: a");
      String mark = "{\"metadata\": {\"annotations\": {\"berth.dev/stop-requested\": \"true\"}}}";
      assertDenied(
          () -> patchJob(member, MANAGED, "mark", mark),
          "metadata.annotations[berth.dev/stop-requested]",
          "only the Berth operator",
          MEMBER);
      assertThat(stored(MANAGED, "mark").getMetadata().getAnnotations())
          .doesNotContainKey("berth.dev/stop-requested");
      patchJob(operator, MANAGED, "mark", mark);
      assertDenied(
          () ->
              patchJob(
                  member,
                  MANAGED,
                  "mark",
                  "{\"metadata\": {\"annotations\": {\"berth.dev/stop-requested\": null}}}"),
          "metadata.annotations[berth.dev/stop-requested]");
      assertThat(stored(MANAGED, "mark").getMetadata().getAnnotations())
          .containsEntry("berth.dev/stop-requested", "true");
    }

    @Test
    void aUserCannotUnsuspendByDroppingTheLabelInTheSameRequest() {
      createJob(FREE, "sneak", "berth.dev/queue-name: a");
      assertDenied(
          () ->
              patchJob(
                  member,
                  FREE,
                  "sneak",
                  "{\"metadata\": {\"labels\": {\"berth.dev/queue-name\": null}},"
                      + " \"spec\": {\"suspend\": false}}"),
          "spec.suspend",
          QUEUE);
      assertThat(stored(FREE, "sneak").getSpec().getSuspend()).isTrue();
    }

    @Test
    void anUnlabelledJobCannotBeCreatedInAManagedNamespace() {
      assertDenied(
          () -> member.resource(job(MANAGED, "nolabel", "app: x", 2)).create(),
          QUEUE,
          "namespace " + MANAGED + " is managed by Berth",
          "ClusterQueue bypass-cq selects it");
      assertThat(stored(MANAGED, "nolabel")).isNull();
    }

    @Test
    void anUnlabelledJobFromBeforeItsNamespaceWasManagedIsNotStartedByAUser() {
      String ns = "bypass-late";
      namespace(ns, Map.of());
      aggregatedBy("edit").forEach(role -> bind(ns, role));
      createJob(ns, "old", "app: x");
      namespace(ns, Map.of("berth.dev/team", "bypass"));
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> cluster.localQueues().managedBecause(ns).isPresent());
      assertDenied(
          () -> patchJob(member, ns, "old", "{\"spec\": {\"suspend\": false}}"),
          "spec.suspend",
          "its namespace is managed");
      assertThat(stored(ns, "old").getSpec().getSuspend()).isTrue();
    }

    @Test
    void theOperatorStartsAJobAndATeamMemberRequeuesCreatesAndDeletes() {
      Job created = createJob(MANAGED, "legit", "berth.dev/queue-name: a");
      assertThat(created.getSpec().getSuspend()).isTrue();
      // Re-queued at another size and in another queue while suspended: allowed.
      patchJob(member, MANAGED, "legit", "{\"spec\": {\"parallelism\": 4}}");
      patchJob(
          member,
          MANAGED,
          "legit",
          "{\"metadata\": {\"labels\": {\"berth.dev/queue-name\": \"b\"}}}");
      assertThat(stored(MANAGED, "legit").getSpec().getParallelism()).isEqualTo(4);
      startAsOperator(MANAGED, "legit");
      member.batch().v1().jobs().inNamespace(MANAGED).withName("legit").delete();
      await().atMost(Duration.ofSeconds(30)).until(() -> stored(MANAGED, "legit") == null);
    }
  }

  @Nested
  class UnmanagedNamespace {
    @Test
    void anUnlabelledJobIsUntouched() {
      Job created =
          member
              .resource(
                  job(FREE, "plain", "app: x", 2)
                      .edit()
                      .editSpec()
                      .withSuspend(false)
                      .endSpec()
                      .build())
              .create();
      assertThat(created.getSpec().getSuspend()).isFalse();
      assertThat(created.getMetadata().getLabels()).doesNotContainKey(Berth.QUEUE_NAME_LABEL);
      patchJob(member, FREE, "plain", "{\"spec\": {\"parallelism\": 8}}");
      patchJob(member, FREE, "plain", "{\"spec\": {\"suspend\": true}}");
      patchJob(member, FREE, "plain", "{\"spec\": {\"suspend\": false}}");
      assertThat(stored(FREE, "plain").getSpec().getParallelism()).isEqualTo(8);
      assertThat(stored(FREE, "plain").getSpec().getSuspend()).isFalse();
    }
  }

  // ---- JobSets ---------------------------------------------------------------------------------

  private static final String JOBSET = "jobset.x-k8s.io/v1alpha2";

  private static void createJobSet(String name, String labels) {
    member
        .resource(
            Serialization.unmarshal(
                """
        apiVersion: jobset.x-k8s.io/v1alpha2
        kind: JobSet
        metadata: {name: %s, namespace: %s, labels: {%s}}
        spec:
          suspend: true
          replicatedJobs:
          - name: workers
            replicas: 2
            template:
              spec:
                parallelism: 2
                completions: 2
                template:
                  spec:
                    containers:
                    - name: c
                      image: trainer
                      resources: {requests: {nvidia.com/gpu: "1"}, limits: {nvidia.com/gpu: "1"}}
        """
                    .formatted(name, MANAGED, labels),
                GenericKubernetesResource.class))
        .create();
  }

  private static void patchJobSet(KubernetesClient as, String name, String patch) {
    as.genericKubernetesResources(JOBSET, "JobSet")
        .inNamespace(MANAGED)
        .withName(name)
        .patch(PatchContext.of(PatchType.JSON), patch);
  }

  private static JsonNode storedJobSet(String name) {
    return json(
        operator
            .genericKubernetesResources(JOBSET, "JobSet")
            .inNamespace(MANAGED)
            .withName(name)
            .get());
  }

  private static String replace(String path, Object value) {
    return "[{\"op\": \"replace\", \"path\": \""
        + path
        + "\", \"value\": "
        + Serialization.asJson(value)
        + "}]";
  }

  @Nested
  class JobSets {
    @Test
    void aRunningJobSetCannotGrowOrShrink() {
      createJobSet("js-size", "berth.dev/queue-name: a");
      patchJobSet(operator, "js-size", replace("/spec/suspend", false));
      assertDenied(
          () -> patchJobSet(member, "js-size", replace("/spec/replicatedJobs/0/replicas", 8)),
          "spec.replicatedJobs[0].replicas");
      assertDenied(
          () -> patchJobSet(member, "js-size", replace("/spec/replicatedJobs/0/replicas", 1)),
          "spec.replicatedJobs[0].replicas");
      assertDenied(
          () ->
              patchJobSet(
                  member,
                  "js-size",
                  replace("/spec/replicatedJobs/0/template/spec/parallelism", 4)),
          "spec.replicatedJobs[0].template.spec.parallelism");
      Map<String, Object> eightGpus = Map.of("nvidia.com/gpu", "8");
      assertDenied(
          () ->
              patchJobSet(
                  member,
                  "js-size",
                  replace(
                      "/spec/replicatedJobs/0/template/spec/template/spec/containers/0/resources",
                      Map.of("requests", eightGpus, "limits", eightGpus))),
          "spec.replicatedJobs[0].template.spec.template.spec.containers[0].resources"
              + ".requests[nvidia.com/gpu]");
      JsonNode stored = storedJobSet("js-size");
      assertThat(stored.at("/spec/replicatedJobs/0/replicas").asInt()).isEqualTo(2);
      assertThat(stored.at("/spec/replicatedJobs/0/template/spec/parallelism").asInt())
          .isEqualTo(2);
      // The operator may (it lowers counts for partial admission).
      patchJobSet(operator, "js-size", replace("/spec/replicatedJobs/0/replicas", 1));
      assertThat(storedJobSet("js-size").at("/spec/replicatedJobs/0/replicas").asInt())
          .isEqualTo(1);
    }

    @Test
    void aSuspendedJobSetKeepsItsQueueAndIsNotStartedByAUser() {
      createJobSet("js-queue", "berth.dev/queue-name: a");
      assertDenied(
          () ->
              patchJobSet(
                  member,
                  "js-queue",
                  "[{\"op\": \"remove\", \"path\": \"/metadata/labels/berth.dev~1queue-name\"}]"),
          QUEUE);
      assertDenied(
          () -> patchJobSet(member, "js-queue", replace("/spec/suspend", false)),
          "spec.suspend",
          "a JobSet managed by Berth can only be unsuspended");
      // Re-queued at another size while suspended: allowed.
      patchJobSet(member, "js-queue", replace("/spec/replicatedJobs/0/replicas", 4));
      assertThat(storedJobSet("js-queue").at("/spec/suspend").asBoolean()).isTrue();
    }

    @Test
    void aForgedJobOfAJobSetDoesNotStart() {
      createJobSet("js-owner", "berth.dev/queue-name: a");
      String uid = storedJobSet("js-owner").at("/metadata/uid").asText();
      java.util.function.BiFunction<String, Integer, Job> child =
          (name, parallelism) ->
              Serialization.unmarshal(
                  """
              apiVersion: batch/v1
              kind: Job
              metadata:
                name: %s
                namespace: %s
                ownerReferences:
                - {apiVersion: %s, kind: JobSet, name: js-owner, uid: %s, controller: true}
              spec:
                parallelism: %d
                completions: 2
                template:
                  spec:
                    restartPolicy: Never
                    containers:
                    - name: c
                      image: trainer
                      resources:
                        requests: {nvidia.com/gpu: "1"}
                        limits: {nvidia.com/gpu: "1"}
              """
                      .formatted(name, MANAGED, JOBSET, uid, parallelism),
                  Job.class);
      // The JobSet is suspended (not admitted): none of its Jobs may run yet.
      assertDenied(
          () -> member.resource(child.apply("js-owner-workers-0", 2)).create(),
          "metadata.ownerReferences",
          "JobSet js-owner is suspended");
      patchJobSet(operator, "js-owner", replace("/spec/suspend", false));
      // Running now: still only the Jobs it runs, at its size.
      assertDenied(
          () -> member.resource(child.apply("js-owner-workers-7", 2)).create(), "metadata.name");
      assertDenied(
          () -> member.resource(child.apply("js-owner-workers-1", 8)).create(), "spec.parallelism");
      // As the JobSet controller creates it (this cluster runs none; the test plays its part).
      Job created = cluster.user().resource(child.apply("js-owner-workers-0", 2)).create();
      assertThat(created.getSpec().getSuspend()).isFalse();
    }

    @Test
    void aUserCannotMarkAChildJobsStopRequest() {
      // An evicted JobSet's quota waits for each child Job's acknowledged suspension, which the
      // mark makes count: forged on a child Job, it could release the quota early.
      createJobSet("js-mark", "berth.dev/queue-name: a");
      String uid = storedJobSet("js-mark").at("/metadata/uid").asText();
      // Created suspended, as the JobSet controller does for a suspended JobSet (none runs here).
      cluster
          .user()
          .resource(
              Serialization.unmarshal(
                  """
              apiVersion: batch/v1
              kind: Job
              metadata:
                name: js-mark-workers-0
                namespace: %s
                labels: {jobset.sigs.k8s.io/jobset-name: js-mark}
                ownerReferences:
                - {apiVersion: %s, kind: JobSet, name: js-mark, uid: %s, controller: true}
              spec:
                suspend: true
                parallelism: 2
                completions: 2
                template:
                  spec:
                    restartPolicy: Never
                    containers:
                    - {name: c, image: trainer}
              """
                      .formatted(MANAGED, JOBSET, uid),
                  Job.class))
          .create();
      String mark = "{\"metadata\": {\"annotations\": {\"berth.dev/stop-requested\": \"1\"}}}";
      assertDenied(
          () -> patchJob(member, MANAGED, "js-mark-workers-0", mark),
          "metadata.annotations[berth.dev/stop-requested]",
          "only the Berth operator",
          MEMBER);
      assertThat(stored(MANAGED, "js-mark-workers-0").getMetadata().getAnnotations())
          .doesNotContainKey("berth.dev/stop-requested");
      patchJob(operator, MANAGED, "js-mark-workers-0", mark);
      assertDenied(
          () ->
              patchJob(
                  member,
                  MANAGED,
                  "js-mark-workers-0",
                  "{\"metadata\": {\"annotations\": {\"berth.dev/stop-requested\": null}}}"),
          "metadata.annotations[berth.dev/stop-requested]");
      assertThat(stored(MANAGED, "js-mark-workers-0").getMetadata().getAnnotations())
          .containsEntry("berth.dev/stop-requested", "1");
    }

    @Test
    void anUnlabelledJobSetCannotBeCreatedInAManagedNamespace() {
      assertDenied(() -> createJobSet("js-nolabel", "app: x"), QUEUE);
    }
  }

  // ---- Pods behind the topology gate -----------------------------------------------------------

  private static Pod createGatedPod(String name) {
    member
        .resource(
            Serialization.unmarshal(
                """
        apiVersion: v1
        kind: Pod
        metadata:
          name: %s
          namespace: %s
          labels: {berth.dev/podset: main, berth.dev/workload: uid-1}
        spec:
          nodeSelector: {nvidia.com/gpu.product: H100}
          containers: [{name: c, image: trainer}]
        """
                    .formatted(name, MANAGED),
                Pod.class))
        .create();
    Pod pod = operator.pods().inNamespace(MANAGED).withName(name).get();
    assertThat(pod.getSpec().getSchedulingGates())
        .extracting(g -> g.getName())
        .containsExactly(Berth.TOPOLOGY_SCHEDULING_GATE);
    return pod;
  }

  private static void patchPod(KubernetesClient as, String name, String patch) {
    as.pods().inNamespace(MANAGED).withName(name).patch(PatchContext.of(PatchType.JSON), patch);
  }

  private static final String REMOVE_GATE =
      "{\"op\": \"remove\", \"path\": \"/spec/schedulingGates/0\"}";
  private static final String ADD_RACK =
      "{\"op\": \"add\", \"path\": \"/spec/nodeSelector/topology.berth.dev~1rack\", \"value\": ";

  @Nested
  class GatedPods {
    @Test
    void aTeamMemberCannotReleaseAGatedPod() {
      createGatedPod("gated");
      assertDenied(
          () -> patchPod(member, "gated", "[" + REMOVE_GATE + "]"),
          "spec.schedulingGates",
          Berth.TOPOLOGY_SCHEDULING_GATE);
      assertDenied(
          () -> patchPod(member, "gated", "[" + REMOVE_GATE + ", " + ADD_RACK + "\"r9\"}]"),
          "spec.schedulingGates",
          "spec.nodeSelector");
      assertDenied(
          () -> patchPod(member, "gated", "[" + ADD_RACK + "\"r9\"}]"), "spec.nodeSelector");
      assertDenied(
          () ->
              patchPod(
                  member,
                  "gated",
                  "[{\"op\": \"remove\", \"path\": \"/metadata/labels/berth.dev~1podset\"}]"),
          "metadata.labels[berth.dev/podset]");
      Pod stored = operator.pods().inNamespace(MANAGED).withName("gated").get();
      assertThat(stored.getSpec().getSchedulingGates()).hasSize(1);
      assertThat(stored.getSpec().getNodeSelector()).containsOnlyKeys("nvidia.com/gpu.product");
      assertThat(stored.getMetadata().getLabels()).containsKey(Berth.PODSET_LABEL);
    }

    @Test
    void theOperatorReleasesItAndThePodIsNoLongerGuarded() {
      createGatedPod("released");
      patchPod(operator, "released", "[" + REMOVE_GATE + ", " + ADD_RACK + "\"r1\"}]");
      Pod stored = operator.pods().inNamespace(MANAGED).withName("released").get();
      assertThat(stored.getSpec().getSchedulingGates()).isEmpty();
      assertThat(stored.getSpec().getNodeSelector()).containsEntry("topology.berth.dev/rack", "r1");
      // Released: updates no longer reach Berth (the match condition), a label edit is the
      // team's business.
      patchPod(
          member,
          "released",
          "[{\"op\": \"add\", \"path\": \"/metadata/labels/app\", \"value\": \"x\"}]");
      assertThat(
              operator
                  .pods()
                  .inNamespace(MANAGED)
                  .withName("released")
                  .get()
                  .getMetadata()
                  .getLabels())
          .containsEntry("app", "x");
    }
  }
}
