package dev.berth.e2e.webhook;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.berth.api.v1beta1.Berth;
import dev.berth.e2e.TeamMemberRoles;
import dev.berth.e2e.chart.ChartRoles;
import dev.berth.local.ControllerManager;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.authorization.v1.SelfSubjectAccessReviewBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
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
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

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
  private static final String GPU = "nvidia.com/gpu";
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
        spec:
          namespaceSelector: {matchLabels: {berth.dev/team: bypass}}
          resourceGroups:
          - coveredResources: [nvidia.com/gpu]
            flavors:
            - name: bypass-gpu
              resources: [{name: nvidia.com/gpu, nominalQuota: 8}]
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
                    && cluster.localQueues().coveredResources(MANAGED).contains(GPU)
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
    TeamMemberRoles.bindRole(operator, MEMBER, ns, clusterRole);
  }

  /**
   * The ClusterRoles whose rules an aggregated ClusterRole collects by its clusterRoleSelectors,
   * through aggregated roles it selects in turn ({@code edit} selects {@code view}).
   */
  private static List<String> aggregatedBy(String name) {
    return TeamMemberRoles.leaves(operator, name);
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

  // ---- Pods outside a managed Job, and CronJobs ------------------------------------------------

  /**
   * Berth queues no Pods, Deployments or StatefulSets yet, so in a namespace a ClusterQueue selects
   * every pod that asks for a resource it covers must be a managed Job's. Here a real
   * kube-controller-manager runs the Deployment, ReplicaSet, CronJob and Job controllers (as {@code
   * system:kube-controller-manager}, not the operator) against this API server, so their writes
   * meet the chart's webhooks as on a cluster. Nothing schedules or runs pods here: a pod that
   * exists was let through.
   */
  @Nested
  @TestInstance(TestInstance.Lifecycle.PER_CLASS)
  class PodsOutsideTheQueue {
    private static final String GPU_POD =
        "{\"requests\": {\"nvidia.com/gpu\": \"8\"}, \"limits\": {\"nvidia.com/gpu\": \"8\"}}";
    private static final String REFUSED_BECAUSE = "so that Berth queues it";

    private ControllerManager controllers;
    private Path kubeconfig;

    @BeforeAll
    void startControllers() throws IOException {
      Path dir = Files.createTempDirectory("berth-bypass-kcm");
      kubeconfig = dir.resolve("kubeconfig");
      Files.writeString(kubeconfig, cluster.kubeconfig());
      controllers =
          ControllerManager.start(
              operator,
              asControllerManager(cluster.kubeconfig()),
              dir,
              List.of(
                  "clusterrole-aggregation-controller",
                  "deployment-controller",
                  "replicaset-controller",
                  "cronjob-controller",
                  "job-controller"));
    }

    @AfterAll
    void stopControllers() {
      if (controllers != null) {
        controllers.close();
      }
    }

    /**
     * The admin kubeconfig, acting as kube-controller-manager's own user: the admin certificate's
     * user is the operator identity here, which the queue rule would let through.
     */
    private static String asControllerManager(String kubeconfig) {
      Map<String, Object> config = Serialization.unmarshal(kubeconfig, Map.class);
      for (Object user : (List<?>) config.get("users")) {
        @SuppressWarnings("unchecked")
        Map<String, Object> auth = (Map<String, Object>) ((Map<?, ?>) user).get("user");
        auth.put("as", "system:kube-controller-manager");
        auth.put("as-groups", List.of("system:masters", "system:authenticated"));
      }
      return Serialization.asYaml(config);
    }

    private Pod pod(String name, String ownerReference, String resources) {
      return Serialization.unmarshal(
          """
          apiVersion: v1
          kind: Pod
          metadata: {name: %s, namespace: %s, ownerReferences: [%s]}
          spec:
            restartPolicy: Never
            containers: [{name: c, image: trainer, resources: %s}]
          """
              .formatted(name, MANAGED, ownerReference, resources),
          Pod.class);
    }

    private ProcessResult kubectlAsMember(String... args) throws Exception {
      List<String> command =
          new ArrayList<>(
              List.of(
                  ControllerManager.binary("kubectl").toString(),
                  "--kubeconfig=" + kubeconfig,
                  "--as=" + MEMBER,
                  "--as-group=system:authenticated"));
      command.addAll(List.of(args));
      Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
      return new ProcessResult(p.exitValue(), out);
    }

    record ProcessResult(int exit, String output) {}

    @Test
    void kubectlRunOfAGpuPodIsRefusedNamingTheLabelAndTheQueues() throws Exception {
      ProcessResult run =
          kubectlAsMember(
              "run",
              "gpu-shell",
              "-n",
              MANAGED,
              "--image=trainer",
              "--restart=Never",
              "--overrides={\"spec\": {\"containers\": [{\"name\": \"gpu-shell\","
                  + " \"image\": \"trainer\", \"resources\": "
                  + GPU_POD
                  + "}]}}");
      assertThat(run.exit()).as(run.output()).isNotZero();
      assertThat(run.output())
          .contains("The Pod \"gpu-shell\" is invalid")
          .contains("spec.containers[0].resources.requests[nvidia.com/gpu]: Forbidden")
          .contains(Berth.QUEUE_NAME_LABEL)
          .contains("LocalQueues (a, b)")
          .contains(REFUSED_BECAUSE);
      assertThat(operator.pods().inNamespace(MANAGED).withName("gpu-shell").get()).isNull();
    }

    /**
     * A labelled pod is queued (the pod integration): stored behind Berth's admission gate, which
     * only the operator removes, and whose placement stays the operator's before and after.
     */
    @Test
    void aLabelledPodIsQueuedAndOnlyTheOperatorReleasesOrPlacesIt() throws Exception {
      ProcessResult run =
          kubectlAsMember(
              "run",
              "queued-shell",
              "-n",
              MANAGED,
              "--image=trainer",
              "--restart=Never",
              "--labels=" + Berth.QUEUE_NAME_LABEL + "=a",
              "--overrides={\"spec\": {\"containers\": [{\"name\": \"queued-shell\","
                  + " \"image\": \"trainer\", \"resources\": "
                  + GPU_POD
                  + "}]}}");
      assertThat(run.exit()).as(run.output()).isZero();
      var pods = member.pods().inNamespace(MANAGED).withName("queued-shell");
      Pod stored = pods.get();
      assertThat(stored.getSpec().getSchedulingGates())
          .extracting(g -> g.getName())
          .containsExactly(Berth.ADMISSION_SCHEDULING_GATE);
      assertThat(stored.getMetadata().getLabels()).containsEntry(Berth.MANAGED_LABEL, "true");

      assertDenied(
          () -> pods.edit(p -> withoutGates(p)),
          "spec.schedulingGates",
          "the " + Berth.ADMISSION_SCHEDULING_GATE + " scheduling gate cannot be removed");
      assertDenied(() -> pods.edit(p -> withToleration(p, "spot")), "spec.tolerations");
      assertDenied(
          () ->
              pods.edit(
                  p -> {
                    p.getMetadata().getLabels().remove(Berth.QUEUE_NAME_LABEL);
                    return p;
                  }),
          QUEUE);
      assertThat(pods.get().getSpec().getSchedulingGates()).hasSize(1);

      // The operator admits it: the gate goes, and its flavor's node label and toleration come, in
      // one write (the API server lets a gated pod's nodeSelector and tolerations be added to).
      operator
          .pods()
          .inNamespace(MANAGED)
          .withName("queued-shell")
          .edit(
              p -> {
                p.getSpec().setNodeSelector(Map.of("gpu", "h100"));
                return withToleration(withoutGates(p), "gpu");
              });
      assertDenied(
          () -> pods.edit(p -> withToleration(p, "spot")),
          "spec.tolerations",
          "once the pod is admitted");
      assertThat(pods.get().getSpec().getTolerations())
          .extracting(t -> t.getKey())
          .contains("gpu")
          .doesNotContain("spot");
    }

    private static Pod withoutGates(Pod pod) {
      pod.getSpec().setSchedulingGates(null);
      return pod;
    }

    private static Pod withToleration(Pod pod, String key) {
      List<io.fabric8.kubernetes.api.model.Toleration> tolerations =
          new ArrayList<>(pod.getSpec().getTolerations());
      tolerations.add(
          new io.fabric8.kubernetes.api.model.Toleration(null, key, "Exists", null, null));
      pod.getSpec().setTolerations(tolerations);
      return pod;
    }

    @Test
    void aPodAskingForNothingTheQueueCoversOrOutsideAManagedNamespaceIsTheTeams() {
      member.resource(pod("cpu-only", "", "{requests: {cpu: 100m}}")).create();
      Pod free = pod("gpu-free", "", GPU_POD);
      free.getMetadata().setNamespace(FREE);
      member.resource(free).create();
      assertThat(operator.pods().inNamespace(MANAGED).withName("cpu-only").get()).isNotNull();
      assertThat(operator.pods().inNamespace(FREE).withName("gpu-free").get()).isNotNull();
    }

    /**
     * An admitted pod's requests and nodeSelector are the API server's to keep: a pod's spec is
     * immutable but for a few fields (none of them these), and in-place resizing goes through
     * {@code pods/resize}, which {@code edit} does not grant.
     */
    @Test
    void aRunningPodsRequestsCannotBeEditedByATeamMember() {
      member.resource(pod("resize-me", "", "{requests: {cpu: 100m}}")).create();
      assertThatThrownBy(
              () ->
                  member
                      .pods()
                      .inNamespace(MANAGED)
                      .withName("resize-me")
                      .patch(
                          PatchContext.of(PatchType.JSON),
                          "[{\"op\": \"add\", \"path\":"
                              + " \"/spec/containers/0/resources/requests/nvidia.com~1gpu\","
                              + " \"value\": \"8\"}]"))
          .isInstanceOf(KubernetesClientException.class)
          .hasMessageContaining("pod updates may not change fields");
      var review =
          member
              .authorization()
              .v1()
              .selfSubjectAccessReview()
              .create(
                  new SelfSubjectAccessReviewBuilder()
                      .withNewSpec()
                      .withNewResourceAttributes()
                      .withNamespace(MANAGED)
                      .withVerb("patch")
                      .withResource("pods")
                      .withSubresource("resize")
                      .endResourceAttributes()
                      .endSpec()
                      .build());
      assertThat(review.getStatus().getAllowed()).as("edit grants pods/resize").isFalse();
    }

    @Test
    void aPodCreatedForAnotherOperatorsObjectIsRefused() {
      var owner =
          member
              .configMaps()
              .inNamespace(MANAGED)
              .resource(
                  new io.fabric8.kubernetes.api.model.ConfigMapBuilder()
                      .withNewMetadata()
                      .withName("trainer-cr")
                      .endMetadata()
                      .build())
              .create();
      String reference =
          "{apiVersion: v1, kind: ConfigMap, name: trainer-cr, uid: %s, controller: true}"
              .formatted(owner.getMetadata().getUid());
      assertDenied(
          () -> member.resource(pod("operator-made", reference, GPU_POD)).create(),
          "spec.containers[0].resources.requests[nvidia.com/gpu]",
          "ConfigMap trainer-cr",
          REFUSED_BECAUSE);
      assertThat(operator.pods().inNamespace(MANAGED).withName("operator-made").get()).isNull();
    }

    @Test
    void aDeploymentScaledFromOneToEightGpuPodsGetsNoPod() {
      member
          .resource(
              Serialization.unmarshal(
                  """
                  apiVersion: apps/v1
                  kind: Deployment
                  metadata: {name: serve, namespace: %s}
                  spec:
                    replicas: 1
                    selector: {matchLabels: {app: serve}}
                    template:
                      metadata: {labels: {app: serve}}
                      spec:
                        containers:
                        - name: c
                          image: server
                          resources: {limits: {nvidia.com/gpu: "1"}}
                  """
                      .formatted(MANAGED),
                  GenericKubernetesResource.class))
          .create();
      awaitFailedCreate(1);
      member
          .apps()
          .deployments()
          .inNamespace(MANAGED)
          .withName("serve")
          .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"spec\": {\"replicas\": 8}}");
      awaitFailedCreate(8);
      assertThat(operator.pods().inNamespace(MANAGED).withLabel("app", "serve").list().getItems())
          .isEmpty();
    }

    /**
     * The Deployment's ReplicaSet wants {@code replicas} pods, has tried to create them, and
     * reports the webhook's refusal (ReplicaFailure, FailedCreate).
     */
    private void awaitFailedCreate(int replicas) {
      await("the ReplicaSet of Deployment serve is refused its " + replicas + " pod(s)")
          .atMost(Duration.ofSeconds(60))
          .untilAsserted(
              () -> {
                var sets =
                    operator
                        .apps()
                        .replicaSets()
                        .inNamespace(MANAGED)
                        .withLabel("app", "serve")
                        .list()
                        .getItems();
                assertThat(sets).hasSize(1);
                var rs = sets.get(0);
                assertThat(rs.getSpec().getReplicas()).isEqualTo(replicas);
                assertThat(rs.getStatus().getObservedGeneration())
                    .isEqualTo(rs.getMetadata().getGeneration());
                assertThat(rs.getStatus().getConditions())
                    .anySatisfy(
                        c -> {
                          assertThat(c.getType()).isEqualTo("ReplicaFailure");
                          assertThat(c.getReason()).isEqualTo("FailedCreate");
                          assertThat(c.getMessage())
                              .contains(Berth.QUEUE_NAME_LABEL)
                              .contains(REFUSED_BECAUSE);
                        });
              });
    }

    @Test
    void aLabelledJobsPodsAreCreatedAndAForgedOneIsNot() {
      Job job = createJob(MANAGED, "pods-run", "berth.dev/queue-name: a");
      startAsOperator(MANAGED, "pods-run");
      await("the Job controller creates the admitted Job's 2 pods")
          .atMost(Duration.ofSeconds(60))
          .until(
              () ->
                  operator
                          .pods()
                          .inNamespace(MANAGED)
                          .withLabel("batch.kubernetes.io/job-name", "pods-run")
                          .list()
                          .getItems()
                          .size()
                      == 2);
      // A pod claiming the running Job but asking for more than its template: refused.
      String reference =
          "{apiVersion: batch/v1, kind: Job, name: pods-run, uid: %s, controller: true}"
              .formatted(job.getMetadata().getUid());
      Pod forged = pod("pods-run-forged", reference, GPU_POD);
      forged
          .getMetadata()
          .setLabels(Map.of("batch.kubernetes.io/controller-uid", job.getMetadata().getUid()));
      assertDenied(
          () -> member.resource(forged).create(),
          "metadata.ownerReferences[0]",
          "asks for 8 nvidia.com/gpu");
    }

    @Test
    void aCronJobWithoutAQueueIsRefusedAndALabelledOnesJobsInheritIt() {
      String cronJob =
          """
          apiVersion: batch/v1
          kind: CronJob
          metadata: {name: %s, namespace: %s}
          spec:
            schedule: "* * * * *"
            jobTemplate:
              metadata: {labels: {%s}}
              spec:
                template:
                  spec:
                    restartPolicy: Never
                    containers:
                    - {name: c, image: trainer, resources: {limits: {nvidia.com/gpu: "1"}}}
          """;
      assertDenied(
          () ->
              member
                  .resource(
                      Serialization.unmarshal(
                          cronJob.formatted("nightly-bare", MANAGED, "app: x"),
                          GenericKubernetesResource.class))
                  .create(),
          "spec.jobTemplate.metadata.labels[berth.dev/queue-name]",
          "LocalQueues (a, b)");
      member
          .resource(
              Serialization.unmarshal(
                  cronJob.formatted("nightly", MANAGED, "berth.dev/queue-name: b"),
                  GenericKubernetesResource.class))
          .create();
      try {
        // The CronJob controller's Job carries the template's queue and is created suspended.
        await("the CronJob controller creates a Job (at the next minute)")
            .atMost(Duration.ofSeconds(90))
            .pollInterval(Duration.ofSeconds(2))
            .untilAsserted(
                () ->
                    assertThat(operator.batch().v1().jobs().inNamespace(MANAGED).list().getItems())
                        .filteredOn(
                            j ->
                                j.getMetadata().getOwnerReferences().stream()
                                    .anyMatch(o -> o.getName().equals("nightly")))
                        .singleElement()
                        .satisfies(
                            j -> {
                              assertThat(j.getMetadata().getLabels())
                                  .containsEntry(Berth.QUEUE_NAME_LABEL, "b");
                              assertThat(j.getSpec().getSuspend()).isTrue();
                            }));
      } finally {
        operator.batch().v1().cronjobs().inNamespace(MANAGED).withName("nightly").delete();
      }
    }
  }
}
