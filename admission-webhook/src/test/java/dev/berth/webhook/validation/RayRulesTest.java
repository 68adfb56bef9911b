package dev.berth.webhook.validation;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.berth.webhook.integration.Framework;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * KubeRay's RayJob and RayCluster under Berth's rules: their object rules (RayValidator), their
 * resize rule while running (PodSetChanges), what KubeRay creates for a RayJob (RayChildren,
 * through ManagedJobPolicy) and a RayCluster's pods under the pod queue rule (PodQueueRule).
 */
class RayRulesTest {
  private static final String OPERATOR = "system:serviceaccount:berth-system:berth";
  private static final String KUBERAY = "system:serviceaccount:ray-system:kuberay-operator";

  static final String CLUSTER_SPEC =
      """
        headGroupSpec:
          template:
            spec:
              containers:
              - {name: ray-head, image: ray, resources: {requests: {cpu: "2"}}}
        workerGroupSpecs:
        - groupName: gpu
          replicas: 2
          template:
            spec:
              containers:
              - {name: ray-worker, image: ray, resources: {limits: {nvidia.com/gpu: "8"}}}
      """;

  static final String CLUSTER =
      """
      apiVersion: ray.io/v1
      kind: RayCluster
      metadata: {name: rc, namespace: ns, uid: rc-uid, labels: {berth.dev/queue-name: team-a}}
      spec:
        suspend: true
      """
          + CLUSTER_SPEC;

  static final String JOB =
      """
      apiVersion: ray.io/v1
      kind: RayJob
      metadata: {name: rj, namespace: ns, uid: rj-uid, labels: {berth.dev/queue-name: team-a}}
      spec:
        suspend: false
        shutdownAfterJobFinishes: true
        submitterPodTemplate:
          spec:
            containers:
            - {name: ray-job-submitter, image: ray, resources: {requests: {cpu: 500m}}}
        rayClusterSpec:
      """
          + CLUSTER_SPEC.indent(2)
          + """
      status: {rayClusterName: rj-abcde}
      """;

  /** The RayJob's cluster as KubeRay makes it: its spec, named in the RayJob's status. */
  static final String CHILD_CLUSTER =
      """
      apiVersion: ray.io/v1
      kind: RayCluster
      metadata:
        name: rj-abcde
        namespace: ns
        uid: child-uid
        labels: {berth.dev/queue-name: team-a}
        ownerReferences:
        - {apiVersion: ray.io/v1, kind: RayJob, name: rj, uid: rj-uid, controller: true}
      spec:
      """
          + CLUSTER_SPEC;

  static final String SUBMITTER =
      """
      apiVersion: batch/v1
      kind: Job
      metadata:
        name: rj
        namespace: ns
        ownerReferences:
        - {apiVersion: ray.io/v1, kind: RayJob, name: rj, uid: rj-uid, controller: true}
      spec:
        backoffLimit: 2
        template:
          spec:
            restartPolicy: Never
            containers:
            - {name: ray-job-submitter, image: ray, resources: {requests: {cpu: "0.5"}}}
      """;

  /** "ns" is selected by a ClusterQueue covering GPUs; it stores the RayJob and its cluster. */
  private static final QueueScope SCOPE =
      new QueueScope() {
        @Override
        public boolean exists(String namespace, String name) {
          return "team-a".equals(name);
        }

        @Override
        public Optional<String> managedBecause(String namespace) {
          return Optional.of("ClusterQueue team-a selects it");
        }

        @Override
        public Optional<JsonNode> jobSet(String namespace, String name) {
          return Optional.empty();
        }

        @Override
        public Set<String> coveredResources(String namespace) {
          return Set.of("nvidia.com/gpu");
        }

        @Override
        public Optional<JsonNode> rayObject(String kind, String namespace, String name) {
          Map<String, String> stored =
              Map.of(
                  "RayJob/rj", JOB, "RayCluster/rj-abcde", CHILD_CLUSTER, "RayCluster/rc", CLUSTER);
          return Optional.ofNullable(stored.get(kind + "/" + name)).map(TestObjects::json);
        }
      };

  private static final ManagedJobPolicy POLICY =
      new ManagedJobPolicy(new RequestGuard(OPERATOR), SCOPE);
  private static final PodQueueRule PODS = new PodQueueRule(new RequestGuard(OPERATOR), SCOPE);

  private static List<String> paths(List<FieldError> errors) {
    return errors.stream().map(FieldError::path).toList();
  }

  @Test
  void aManagedClusterIsOneWorkloadWithoutAutoscalingOrAWorkerGroupNamedHead() {
    assertThat(RayValidator.rayCluster(TestObjects.json(CLUSTER))).isEmpty();
    String bad =
        CLUSTER
            .replace("  suspend: true", "  suspend: true\n  enableInTreeAutoscaling: true")
            .replace("groupName: gpu", "groupName: head");
    assertThat(paths(RayValidator.rayCluster(TestObjects.json(bad))))
        .containsExactly("spec.enableInTreeAutoscaling", "spec.workerGroupSpecs[0].groupName");
    // Unlabelled ones are not Berth's: no object rule applies (the queue rule refuses them).
    assertThat(
            RayValidator.rayCluster(
                TestObjects.json(
                    bad.replace("labels: {berth.dev/queue-name: team-a}", "labels: {}"))))
        .isEmpty();
  }

  @Test
  void aManagedRayJobCreatesItsOwnClusterAndDeletesItWhenItEnds() {
    assertThat(RayValidator.rayJob(TestObjects.json(JOB))).isEmpty();
    assertThat(
            paths(
                RayValidator.rayJob(
                    TestObjects.json(
                        JOB.replace(
                                "shutdownAfterJobFinishes: true", "shutdownAfterJobFinishes: false")
                            .replace("groupName: gpu", "groupName: Not_A_Label")))))
        .containsExactly(
            "spec.shutdownAfterJobFinishes", "spec.rayClusterSpec.workerGroupSpecs[0].groupName");
    String onExisting =
        JOB.replace("shutdownAfterJobFinishes: true", "clusterSelector: {ray.io/cluster: shared}");
    assertThat(paths(RayValidator.rayJob(TestObjects.json(onExisting))))
        .containsExactly("spec.clusterSelector");
  }

  @Test
  void aRunningClusterCannotBeResizedButTheOperatorStartsAndStopsIt() {
    String running = CLUSTER.replace("suspend: true", "suspend: false");
    String grown = running.replace("replicas: 2", "replicas: 8");
    assertThat(
            paths(
                POLICY.onUpdate(
                    "RayCluster",
                    "ns",
                    TestObjects.json(running),
                    TestObjects.json(grown),
                    "alice")))
        .containsExactly("spec.workerGroupSpecs[0].replicas");
    assertThat(
            POLICY.onUpdate(
                "RayCluster", "ns", TestObjects.json(running), TestObjects.json(grown), OPERATOR))
        .isEmpty();
    assertThat(
            paths(
                POLICY.onUpdate(
                    "RayCluster",
                    "ns",
                    TestObjects.json(CLUSTER),
                    TestObjects.json(running),
                    "alice")))
        .containsExactly("spec.suspend");
    assertThat(
            PodSetChanges.of(
                Framework.RAYJOB,
                TestObjects.json(JOB),
                TestObjects.json(JOB.replace("nvidia.com/gpu: \"8\"", "nvidia.com/gpu: \"4\"")),
                "running"))
        .extracting(FieldError::path)
        .containsExactly(
            "spec.rayClusterSpec.workerGroupSpecs[0].template.spec.containers[0].resources.limits[nvidia.com/gpu]");
  }

  @Test
  void whatKubeRayMakesForAnAdmittedRayJobIsNotQueuedAgainButMustBeWhatItWasAdmittedFor() {
    assertThat(POLICY.onCreate("RayCluster", "ns", TestObjects.json(CHILD_CLUSTER), KUBERAY))
        .isEmpty();
    assertThat(POLICY.onCreate("Job", "ns", TestObjects.json(SUBMITTER), KUBERAY)).isEmpty();
    // Bigger than the RayJob's, under another name, or the submitter asking more: refused.
    assertThat(
            paths(
                POLICY.onCreate(
                    "RayCluster",
                    "ns",
                    TestObjects.json(CHILD_CLUSTER.replace("replicas: 2", "replicas: 3")),
                    "alice")))
        .containsExactly("spec.workerGroupSpecs[0].replicas");
    assertThat(
            paths(
                POLICY.onCreate(
                    "RayCluster",
                    "ns",
                    TestObjects.json(CHILD_CLUSTER.replace("rj-abcde", "rj-other")),
                    "alice")))
        .containsExactly("metadata.name");
    assertThat(
            paths(
                POLICY.onCreate(
                    "Job",
                    "ns",
                    TestObjects.json(SUBMITTER.replace("cpu: \"0.5\"", "cpu: \"4\"")),
                    "alice")))
        .containsExactly("spec.template.spec.containers[0].resources");
    // A child growing while it runs is held to the RayJob too.
    assertThat(
            paths(
                POLICY.onUpdate(
                    "RayCluster",
                    "ns",
                    TestObjects.json(CHILD_CLUSTER),
                    TestObjects.json(CHILD_CLUSTER.replace("replicas: 2", "replicas: 5")),
                    "alice")))
        .containsExactly("spec.workerGroupSpecs[0].replicas");
    // A RayJob that does not exist (or is suspended) runs nothing.
    assertThat(
            paths(
                POLICY.onCreate(
                    "RayCluster",
                    "ns",
                    TestObjects.json(CHILD_CLUSTER.replace("uid: rj-uid", "uid: forged")),
                    "alice")))
        .containsExactly("metadata.ownerReferences");
  }

  private static String pod(String owner, String labels, String gpus) {
    return """
        apiVersion: v1
        kind: Pod
        metadata:
          name: p
          namespace: ns
          labels: %s
          ownerReferences: [%s]
        spec:
          initContainers:
          - {name: wait-gcs-ready, image: ray, resources: {requests: {cpu: 200m}}}
          containers:
          - {name: ray-worker, image: ray, resources: {limits: {nvidia.com/gpu: "%s"}}}
        """
        .formatted(labels, owner, gpus);
  }

  private static final String WORKER =
      "{ray.io/cluster: rj-abcde, ray.io/node-type: worker, ray.io/group: gpu}";

  @Test
  void aClustersPodsAreItsAdmittedOnesAndNoMore() {
    String ofCluster =
        "{apiVersion: ray.io/v1, kind: RayCluster, name: rc, uid: rc-uid, controller: true}";
    String ofChild =
        "{apiVersion: ray.io/v1, kind: RayCluster, name: rj-abcde, uid: child-uid,"
            + " controller: true}";
    // The RayJob's cluster: its RayJob is admitted (not suspended).
    assertThat(PODS.onCreate("ns", TestObjects.json(pod(ofChild, WORKER, "8")), KUBERAY)).isEmpty();
    // More than its group's template asks.
    assertThat(paths(PODS.onCreate("ns", TestObjects.json(pod(ofChild, WORKER, "16")), KUBERAY)))
        .containsExactly("metadata.ownerReferences[0]");
    // A group the cluster has not.
    assertThat(
            paths(
                PODS.onCreate(
                    "ns",
                    TestObjects.json(
                        pod(
                            ofChild,
                            "{ray.io/cluster: rj-abcde, ray.io/node-type: worker,"
                                + " ray.io/group: other}",
                            "8")),
                    KUBERAY)))
        .containsExactly("metadata.ownerReferences[0]");
    // Without the cluster's label, which KubeRay counts its pods by.
    assertThat(
            PODS.onCreate(
                    "ns",
                    TestObjects.json(pod(ofChild, WORKER.replace("rj-abcde", "other"), "8")),
                    "alice")
                .get(0)
                .message())
        .contains("ray.io/cluster=rj-abcde");
    // A RayCluster of its own, still suspended: its Workload is not admitted.
    assertThat(
            PODS.onCreate(
                    "ns",
                    TestObjects.json(pod(ofCluster, WORKER.replace("rj-abcde", "rc"), "8")),
                    KUBERAY)
                .get(0)
                .message())
        .contains("RayCluster rc is suspended");
  }
}
