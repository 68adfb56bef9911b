package dev.berth.webhook.validation;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Pod creates in a managed namespace: which pods may hold the quota's resources. */
class PodQueueRuleTest {
  private static final String OPERATOR = "system:serviceaccount:berth-system:berth";

  private static final QueueScope SCOPE = new TeamA();

  /**
   * team-a: ClusterQueue gpus (covers nvidia.com/gpu) selects it; LocalQueues a and b. Named, so
   * that ClaimResourcesTest can give it DRA claims.
   */
  static class TeamA implements QueueScope {
    @Override
    public boolean exists(String namespace, String name) {
      return localQueues(namespace).contains(name);
    }

    @Override
    public Optional<String> managedBecause(String namespace) {
      return namespace.equals("team-a")
          ? Optional.of("ClusterQueue gpus selects it")
          : Optional.empty();
    }

    @Override
    public Optional<JsonNode> jobSet(String namespace, String name) {
      return Optional.empty();
    }

    @Override
    public Set<String> coveredResources(String namespace) {
      return namespace.equals("team-a") ? Set.of("nvidia.com/gpu") : Set.of();
    }

    @Override
    public List<String> localQueues(String namespace) {
      return namespace.equals("team-a") ? List.of("a", "b") : List.of();
    }

    @Override
    public Optional<JsonNode> job(String namespace, String name) {
      return Optional.ofNullable(JOBS.get(namespace + "/" + name)).map(TestObjects::json);
    }
  }

  private static final String JOB =
      """
      apiVersion: batch/v1
      kind: Job
      metadata:
        name: train
        namespace: team-a
        uid: job-uid
        labels: {berth.dev/queue-name: a}
      spec:
        suspend: false
        selector: {matchLabels: {batch.kubernetes.io/controller-uid: job-uid}}
        template:
          spec:
            containers:
            - {name: c, image: trainer, resources: {limits: {nvidia.com/gpu: "2"}}}
      """;

  private static final Map<String, String> JOBS =
      Map.of(
          "team-a/train", JOB,
          "team-a/suspended",
              JOB.replace("train", "suspended").replace("suspend: false", "suspend: true"),
          "team-a/unlabelled",
              JOB.replace("train", "unlabelled")
                  .replace("labels: {berth.dev/queue-name: a}", "labels: {}"),
          "team-a/of-jobset",
              JOB.replace("train", "of-jobset")
                  .replace(
                      "labels: {berth.dev/queue-name: a}",
                      "ownerReferences: [{apiVersion: jobset.x-k8s.io/v1alpha2, kind: JobSet,"
                          + " name: js, uid: js-uid, controller: true}]"));

  private static final PodQueueRule RULE = new PodQueueRule(new RequestGuard(OPERATOR), SCOPE);

  /** A pod asking for {@code resources}, owned by {@code owner} (a YAML ownerReferences entry). */
  static String pod(String namespace, String owner, String resources) {
    return """
        apiVersion: v1
        kind: Pod
        metadata:
          name: p
          namespace: %s
          labels: {batch.kubernetes.io/controller-uid: job-uid}
          ownerReferences: [%s]
        spec:
          containers:
          - {name: c, image: trainer, resources: %s}
        """
        .formatted(namespace, owner, resources);
  }

  private static final String GPUS =
      "{requests: {nvidia.com/gpu: \"2\"}, limits: {nvidia.com/gpu: \"2\"}}";
  private static final String CPU = "{requests: {cpu: \"2\"}}";
  private static final String OWNED_BY_JOB =
      "{apiVersion: batch/v1, kind: Job, name: train, uid: job-uid, controller: true}";

  private static String ownedBy(String kind, String name) {
    return "{apiVersion: batch/v1, kind: %s, name: %s, uid: job-uid, controller: true}"
        .formatted(kind, name);
  }

  record Case(String name, String pod, String user, List<String> refused) {
    @Override
    public String toString() {
      return name;
    }
  }

  static List<Case> cases() {
    String rsOwned =
        "{apiVersion: apps/v1, kind: ReplicaSet, name: web-1, uid: rs, controller: true}";
    return List.of(
        new Case(
            "kubectl run of a GPU pod",
            pod("team-a", "", GPUS),
            "alice",
            List.of("spec.containers[0].resources.requests[nvidia.com/gpu]")),
        new Case(
            "a ReplicaSet's GPU pod",
            pod("team-a", rsOwned, GPUS),
            "system:serviceaccount:kube-system:replicaset-controller",
            List.of("spec.containers[0].resources.requests[nvidia.com/gpu]")),
        new Case(
            "another operator's GPU pod (owned by a custom object)",
            pod(
                "team-a",
                "{apiVersion: example.com/v1, kind: Trainer, name: t, uid: t, controller: true}",
                GPUS),
            "system:serviceaccount:trainers:controller",
            List.of("spec.containers[0].resources.requests[nvidia.com/gpu]")),
        new Case(
            "a limit alone counts as the request",
            pod("team-a", "", "{limits: {nvidia.com/gpu: \"1\"}}"),
            "alice",
            List.of("spec.containers[0].resources.limits[nvidia.com/gpu]")),
        new Case(
            "an init container's GPU counts",
            pod("team-a", "", CPU)
                .replace(
                    "  containers:\n",
                    "  initContainers:\n  - {name: i, image: x, resources: {requests: {nvidia.com/gpu:"
                        + " \"1\"}}}\n  containers:\n"),
            "alice",
            List.of("spec.initContainers[0].resources.requests[nvidia.com/gpu]")),
        new Case(
            "a pod asking for no covered resource", pod("team-a", "", CPU), "alice", List.of()),
        new Case(
            "a zero GPU request",
            pod("team-a", "", "{requests: {nvidia.com/gpu: \"0\"}}"),
            "alice",
            List.of()),
        new Case("a namespace Berth does not manage", pod("team-b", "", GPUS), "alice", List.of()),
        new Case(
            "a managed Job's pod",
            pod("team-a", OWNED_BY_JOB, GPUS),
            "system:serviceaccount:kube-system:job-controller",
            List.of()),
        new Case(
            "a managed Job's pod asking for less",
            pod("team-a", OWNED_BY_JOB, GPUS.replace("\"2\"", "\"1\"")),
            "alice",
            List.of()),
        new Case(
            "a JobSet's child Job's pod",
            pod("team-a", ownedBy("Job", "of-jobset"), GPUS),
            "alice",
            List.of()),
        new Case(
            "a pod claiming a Job that does not exist",
            pod("team-a", ownedBy("Job", "nope"), GPUS),
            "alice",
            List.of("metadata.ownerReferences[0]")),
        new Case(
            "a pod claiming a Job with another uid",
            pod("team-a", OWNED_BY_JOB.replace("uid: job-uid", "uid: other"), GPUS),
            "alice",
            List.of("metadata.ownerReferences[0]")),
        new Case(
            "a pod of a Job not queued by Berth",
            pod("team-a", ownedBy("Job", "unlabelled"), GPUS),
            "alice",
            List.of("metadata.ownerReferences[0]")),
        new Case(
            "a pod of a suspended Job",
            pod("team-a", ownedBy("Job", "suspended"), GPUS),
            "alice",
            List.of("metadata.ownerReferences[0]")),
        new Case(
            "a pod the Job's selector does not count",
            pod("team-a", OWNED_BY_JOB, GPUS)
                .replace("controller-uid: job-uid}", "controller-uid: x}"),
            "alice",
            List.of("metadata.ownerReferences[0]")),
        new Case(
            "a pod larger than its Job's template",
            pod("team-a", OWNED_BY_JOB, GPUS.replace("\"2\"", "\"8\"")),
            "alice",
            List.of("metadata.ownerReferences[0]")),
        new Case(
            "a reference that is not the controller is no owner",
            pod("team-a", OWNED_BY_JOB.replace("controller: true", "controller: false"), GPUS),
            "alice",
            List.of("spec.containers[0].resources.requests[nvidia.com/gpu]")),
        new Case(
            "a mirror pod",
            pod("team-a", "", GPUS)
                .replace("  labels:", "  annotations: {kubernetes.io/config.mirror: x}\n  labels:"),
            "system:node:n1",
            List.of()),
        new Case("the operator", pod("team-a", "", GPUS), OPERATOR, List.of()),
        new Case("a queued plain Pod", queued(pod("team-a", "", GPUS)), "alice", List.of()),
        new Case(
            "a labelled pod the pod webhook did not gate (the pod integration is off)",
            queued(pod("team-a", "", GPUS))
                .replace("  schedulingGates: [{name: berth.dev/admission}]\n", ""),
            "alice",
            List.of("spec.containers[0].resources.requests[nvidia.com/gpu]")),
        new Case(
            "a gated pod not marked by the pod webhook",
            queued(pod("team-a", "", GPUS)).replace(", berth.dev/managed: \"true\"", ""),
            "alice",
            List.of("spec.containers[0].resources.requests[nvidia.com/gpu]")),
        new Case(
            "a queued pod of a group that says its size",
            inGroup(queued(pod("team-a", "", GPUS)), "3"),
            "alice",
            List.of()),
        new Case(
            "a queued pod of a group that does not say its size",
            inGroup(queued(pod("team-a", "", GPUS)), null),
            "alice",
            List.of("metadata.annotations[berth.dev/pod-group-total-count]")),
        new Case(
            "a queued pod of a group of no pods",
            inGroup(queued(pod("team-a", "", GPUS)), "0"),
            "alice",
            List.of("metadata.annotations[berth.dev/pod-group-total-count]")),
        new Case(
            "a queued pod of a ReplicaSet (a Deployment's, queued on its own)",
            queued(pod("team-a", rsOwned, GPUS)),
            "system:serviceaccount:kube-system:replicaset-controller",
            List.of()),
        new Case(
            "a queued-looking pod of a DaemonSet",
            queued(
                pod(
                    "team-a",
                    "{apiVersion: apps/v1, kind: DaemonSet, name: agent, uid: ds, controller: true}",
                    GPUS)),
            "alice",
            List.of("spec.containers[0].resources.requests[nvidia.com/gpu]")));
  }

  /** {@code pod} in group {@code trio}, with {@code count} as its total (none when null). */
  private static String inGroup(String pod, String count) {
    return pod.replace(
        "berth.dev/managed: \"true\"}",
        "berth.dev/managed: \"true\", berth.dev/pod-group-name: trio}"
            + (count == null
                ? ""
                : "\n  annotations: {berth.dev/pod-group-total-count: \"" + count + "\"}"));
  }

  /** {@code pod} as the pod webhook leaves a plain Pod labelled for LocalQueue a. */
  private static String queued(String pod) {
    return pod.replace(
            "labels: {batch.kubernetes.io/controller-uid: job-uid}",
            "labels: {berth.dev/queue-name: a, berth.dev/managed: \"true\"}")
        .replace("spec:\n", "spec:\n  schedulingGates: [{name: berth.dev/admission}]\n");
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void create(Case c) {
    JsonNode pod = TestObjects.json(c.pod());
    assertThat(RULE.onCreate(pod.at("/metadata/namespace").asText(), pod, c.user()))
        .extracting(FieldError::path)
        .containsExactlyElementsOf(c.refused());
  }

  @Test
  void theMessageNamesTheLabelTheLocalQueuesAndWhatToDoInstead() {
    JsonNode pod = TestObjects.json(pod("team-a", "", GPUS));
    assertThat(RULE.onCreate("team-a", pod, "alice"))
        .map(FieldError::toString)
        .containsExactly(
            "spec.containers[0].resources.requests[nvidia.com/gpu]: Forbidden: the pod asks for"
                + " nvidia.com/gpu, which namespace team-a's quota covers (it is managed by Berth:"
                + " ClusterQueue gpus selects it): label it berth.dev/queue-name with one of the"
                + " namespace's LocalQueues (a, b) so that Berth queues it");
  }

  @Test
  void aForgedOwnerIsToldWhy() {
    JsonNode pod = TestObjects.json(pod("team-a", OWNED_BY_JOB, GPUS.replace("\"2\"", "\"8\"")));
    assertThat(RULE.onCreate("team-a", pod, "alice"))
        .map(FieldError::toString)
        .singleElement()
        .asString()
        .startsWith(
            "metadata.ownerReferences[0]: Forbidden: the pod asks for 8 nvidia.com/gpu and the"
                + " template of Job train, which its Workload was admitted for, for 2");
  }

  /** The API server refuses such a pod on its own; the rule must not fail on it first. */
  @Test
  void aMalformedPodIsNoFailure() {
    JsonNode pod =
        TestObjects.json(
            """
            metadata: {ownerReferences: {a: {kind: Job, controller: true}}}
            spec:
              containers: {c: {resources: {requests: {nvidia.com/gpu: lots}, limits: [1]}}}
              initContainers: {i: {resources: {limits: {nvidia.com/gpu: "1"}}}}
            """);
    assertThat(RULE.onCreate("team-a", pod, "alice"))
        .extracting(FieldError::path)
        .containsExactly("spec");
  }

  @Test
  void podResourcesCountsAsTheOperatorCharges() {
    JsonNode spec =
        TestObjects.json(
                """
                spec:
                  initContainers:
                  - {name: sidecar, restartPolicy: Always, resources: {requests: {nvidia.com/gpu: "1"}}}
                  - {name: init, resources: {requests: {nvidia.com/gpu: "4"}}}
                  containers:
                  - {name: a, resources: {limits: {nvidia.com/gpu: "2"}}}
                  - {name: b, resources: {requests: {cpu: 500m, nvidia.com/gpu: "1"}}}
                  resources: {requests: {cpu: "3"}}
                  overhead: {cpu: 250m}
                """)
            .path("spec");
    // containers 3 + sidecar 1 = 4; the init step 4 + sidecar 1 = 5 wins. cpu: pod level 3 + 0.25.
    assertThat(PodResources.totals(spec, Set.of("nvidia.com/gpu", "cpu", "memory")))
        .hasSize(2)
        .hasEntrySatisfying("nvidia.com/gpu", v -> assertThat(v).isEqualByComparingTo("5"))
        .hasEntrySatisfying("cpu", v -> assertThat(v).isEqualByComparingTo("3.25"));
  }
}
