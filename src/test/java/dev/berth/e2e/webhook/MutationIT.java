package dev.berth.e2e.webhook;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.berth.api.v1beta1.Berth;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** What the mutating webhooks change, as stored by the API server. */
class MutationIT {
  static final String NS = "webhook-mutation";
  static final String NS_WITH_DEFAULT = "webhook-default-queue";
  private static WebhookTestCluster cluster;
  private static KubernetesClient client;

  @BeforeAll
  static void setUp() {
    cluster = WebhookTestCluster.get();
    cluster.ensureNamespace(NS);
    cluster.ensureNamespace(NS_WITH_DEFAULT);
    client = cluster.user();
    create(
        """
        apiVersion: berth.dev/v1beta1
        kind: LocalQueue
        metadata: {name: default, namespace: %s}
        spec: {clusterQueue: team-a}
        """
            .formatted(NS_WITH_DEFAULT));
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> cluster.localQueues().exists(NS_WITH_DEFAULT, "default"));
  }

  private static GenericKubernetesResource create(String yaml) {
    return client.resource(Serialization.unmarshal(yaml, GenericKubernetesResource.class)).create();
  }

  private static String job(String name, String ns, String labels, boolean suspend) {
    return """
        apiVersion: batch/v1
        kind: Job
        metadata: {name: %s, namespace: %s, labels: {%s}}
        spec:
          suspend: %s
          template:
            spec:
              restartPolicy: Never
              containers: [{name: main, image: busybox}]
        """
        .formatted(name, ns, labels, suspend);
  }

  private static Job storedJob(String ns, String name) {
    return client.batch().v1().jobs().inNamespace(ns).withName(name).get();
  }

  @Test
  void managedJobCreatedRunningIsStoredSuspended() {
    create(job("managed", NS, "berth.dev/queue-name: team-a", false));
    assertThat(storedJob(NS, "managed").getSpec().getSuspend()).isTrue();
  }

  @Test
  void jobWithoutQueueGetsTheDefaultLocalQueueAndIsSuspended() {
    create(job("defaulted", NS_WITH_DEFAULT, "app: x", false));
    Job stored = storedJob(NS_WITH_DEFAULT, "defaulted");
    assertThat(stored.getMetadata().getLabels())
        .containsEntry(Berth.QUEUE_NAME_LABEL, "default")
        .containsEntry("app", "x");
    assertThat(stored.getSpec().getSuspend()).isTrue();
  }

  @Test
  void jobWithoutQueueWhereThereIsNoDefaultQueueIsLeftAlone() {
    create(job("unmanaged", NS, "app: x", false));
    Job stored = storedJob(NS, "unmanaged");
    assertThat(stored.getMetadata().getLabels()).doesNotContainKey(Berth.QUEUE_NAME_LABEL);
    assertThat(stored.getSpec().getSuspend()).isFalse();
  }

  @Test
  void jobSetChildIsNotSuspendedByBerth() {
    String child =
        job("jobset-child", NS, "berth.dev/queue-name: team-a", false)
            .replace(
                "metadata: {name: jobset-child,",
                "metadata: {ownerReferences: [{apiVersion:"
                    + " jobset.x-k8s.io/v1alpha2, kind: JobSet, name: js, uid: 0d2c3a4e-1111-2222-3333-"
                    + "444455556666, controller: true}], name: jobset-child,");
    // Created by the JobSet controller in a real cluster; that is not the operator identity.
    client.resource(Serialization.unmarshal(child, GenericKubernetesResource.class)).create();
    assertThat(storedJob(NS, "jobset-child").getSpec().getSuspend()).isFalse();
  }

  @Test
  void managedJobSetIsStoredSuspended() {
    GenericKubernetesResource stored =
        create(
            """
        apiVersion: jobset.x-k8s.io/v1alpha2
        kind: JobSet
        metadata: {name: js-managed, namespace: %s, labels: {berth.dev/queue-name: team-a}}
        spec:
          suspend: false
          replicatedJobs:
          - {name: w, replicas: 1, template: {spec: {template: {spec: {containers: [{name: c, image: c}]}}}}}
        """
                .formatted(NS));
    assertThat(((Map<?, ?>) stored.getAdditionalProperties().get("spec")).get("suspend"))
        .isEqualTo(true);
  }

  @Test
  void jobSetWithoutQueueGetsTheDefaultQueue() {
    GenericKubernetesResource stored =
        create(
            """
        apiVersion: jobset.x-k8s.io/v1alpha2
        kind: JobSet
        metadata: {name: js-defaulted, namespace: %s}
        spec:
          replicatedJobs:
          - {name: w, replicas: 1, template: {spec: {template: {spec: {containers: [{name: c, image: c}]}}}}}
        """
                .formatted(NS_WITH_DEFAULT));
    assertThat(stored.getMetadata().getLabels()).containsEntry(Berth.QUEUE_NAME_LABEL, "default");
    assertThat(((Map<?, ?>) stored.getAdditionalProperties().get("spec")).get("suspend"))
        .isEqualTo(true);
  }

  @Test
  void clusterQueueDefaultsAreStored() {
    // A selector no namespace has: {} would make every namespace of this shared API server one
    // Berth manages, and the other suites' unlabelled Jobs would be refused.
    GenericKubernetesResource stored =
        create(
            """
        apiVersion: berth.dev/v1beta1
        kind: ClusterQueue
        metadata: {name: defaults}
        spec: {namespaceSelector: {matchLabels: {berth.dev/test: cq-defaults}}}
        """);
    Map<?, ?> spec = (Map<?, ?>) stored.getAdditionalProperties().get("spec");
    assertThat(spec.get("queueingStrategy")).isEqualTo("BestEffortFIFO");
    assertThat(spec.get("stopPolicy")).isEqualTo("None");
    assertThat(spec.get("flavorFungibility"))
        .isEqualTo(Map.of("whenCanBorrow", "MayStopSearch", "whenCanPreempt", "TryNextFlavor"));
    assertThat(spec.get("preemption"))
        .isEqualTo(Map.of("withinClusterQueue", "Never", "reclaimWithinCohort", "Never"));
  }

  @Test
  void workloadDefaultsAreStored() {
    GenericKubernetesResource stored =
        create(
            """
        apiVersion: berth.dev/v1beta1
        kind: Workload
        metadata: {name: defaults, namespace: %s}
        spec:
          podSets:
          - template: {spec: {containers: [{name: c, image: c}]}}
        """
                .formatted(NS));
    Map<?, ?> spec = (Map<?, ?>) stored.getAdditionalProperties().get("spec");
    Map<?, ?> podSet = (Map<?, ?>) ((java.util.List<?>) spec.get("podSets")).get(0);
    assertThat(podSet.get("count")).isEqualTo(1);
    assertThat(podSet.get("name")).isEqualTo("main");
    assertThat(spec.get("active")).isEqualTo(true);
  }

  @Test
  void localQueueDefaultsAreStored() {
    GenericKubernetesResource stored =
        create(
            """
        apiVersion: berth.dev/v1beta1
        kind: LocalQueue
        metadata: {name: defaults, namespace: %s}
        spec: {clusterQueue: team-a}
        """
                .formatted(NS));
    assertThat(((Map<?, ?>) stored.getAdditionalProperties().get("spec")).get("stopPolicy"))
        .isEqualTo("None");
  }
}
