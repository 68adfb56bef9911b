package dev.berth.operator.kube;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.berth.api.v1beta1.Workload;
import dev.berth.operator.reconciler.PodReconciler;
import dev.berth.operator.reconciler.WorkloadReconciler;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.javaoperatorsdk.operator.api.config.BaseConfigurationService;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import java.util.List;
import org.junit.jupiter.api.Test;

class LeanItemStoreTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** What a watch delivers: metadata with two writers' managedFields, a spec and a status. */
  private static final String META =
      """
        name: train
        namespace: team
        uid: 0b7c7c1e-7d55-4b36-9a5e-1c2a6f1f3a10
        resourceVersion: "4711"
        generation: 3
        creationTimestamp: "2026-12-01T10:00:00Z"
        labels: {berth.dev/queue-name: training}
        annotations: {berth.dev/note: kept}
        finalizers: [berth.dev/resource-in-use]
        ownerReferences:
        - {apiVersion: batch/v1, kind: Job, name: train, uid: 1f1c, controller: true}
        managedFields:
        - manager: kube-controller-manager
          operation: Update
          apiVersion: batch/v1
          time: "2026-12-01T10:00:01Z"
          fieldsType: FieldsV1
          fieldsV1: {"f:status": {"f:active": {}, "f:ready": {}}}
        - manager: berth
          operation: Update
          subresource: status
          apiVersion: berth.dev/v1beta1
          fieldsType: FieldsV1
          fieldsV1: {"f:status": {"f:conditions": {".": {}}}}
      """;

  private static final String JOB =
      "apiVersion: batch/v1\nkind: Job\nmetadata:\n"
          + META
          + """
          spec:
            suspend: false
            parallelism: 2
            template:
              spec:
                schedulingGates: [{name: berth.dev/topology}]
                nodeSelector: {gpu: a100}
                containers:
                - name: main
                  image: busybox
                  resources: {requests: {cpu: "2", nvidia.com/gpu: "1"}}
                restartPolicy: Never
          status: {active: 2, ready: 1}
          """;

  private static final String POD =
      "apiVersion: v1\nkind: Pod\nmetadata:\n"
          + META
          + """
          spec:
            nodeName: node-7
            schedulingGates: [{name: berth.dev/topology}]
            containers:
            - name: main
              image: busybox
              resources: {requests: {cpu: "2"}, limits: {nvidia.com/gpu: "1"}}
          status:
            phase: Running
            conditions: [{type: Ready, status: "True"}]
          """;

  private static final String WORKLOAD =
      "apiVersion: berth.dev/v1beta1\nkind: Workload\nmetadata:\n"
          + META
          + """
          spec:
            queueName: training
            priority: 100
            podSets:
            - name: main
              count: 2
              template:
                spec:
                  containers:
                  - {name: main, image: busybox, resources: {requests: {cpu: "2"}}}
          status:
            conditions:
            - {type: QuotaReserved, status: "True", reason: QuotaReserved, message: admitted,
               lastTransitionTime: "2026-12-01T10:00:02Z"}
          """;

  @Test
  void storesAWatchedJobWithoutManagedFieldsAndEverythingElseAsItCame() throws Exception {
    assertOnlyManagedFieldsDropped(JOB, Job.class);
  }

  @Test
  void storesAWatchedPodWithoutManagedFieldsAndEverythingElseAsItCame() throws Exception {
    assertOnlyManagedFieldsDropped(POD, Pod.class);
  }

  @Test
  void storesAWatchedWorkloadWithoutManagedFieldsAndEverythingElseAsItCame() throws Exception {
    assertOnlyManagedFieldsDropped(WORKLOAD, Workload.class);
  }

  @Test
  void keysByNamespaceAndNameAndHandsBackTheLeanPreviousObjectOnReplace() {
    LeanItemStore<Job> store = new LeanItemStore<>();
    Job first = Serialization.unmarshal(JOB, Job.class);
    Job second = Serialization.unmarshal(JOB, Job.class);
    second.getMetadata().setResourceVersion("4712");

    String key = store.getKey(first);
    assertThat(key).isEqualTo("team/train");
    assertThat(store.put(key, first)).isNull();
    Job previous = store.put(key, second);

    assertThat(previous).isSameAs(first);
    assertThat(previous.getMetadata().getManagedFields()).isNull();
    assertThat(store.get(key)).isSameAs(second);
    assertThat(store.get(key).getMetadata().getManagedFields()).isNull();
    assertThat(store.size()).isEqualTo(1);
    assertThat(store.remove(key)).isSameAs(second);
    assertThat(store.size()).isZero();
  }

  /** JOSDK reads the annotation and hands the informer a store of that class (not a default). */
  @Test
  void josdkGivesTheReconcilersInformersALeanItemStore() {
    var josdk = new BaseConfigurationService();

    for (Reconciler<?> reconciler :
        List.<Reconciler<?>>of(
            new WorkloadReconciler(null, null, null), new PodReconciler(null, null, null))) {
      assertThat(josdk.getConfigurationFor(reconciler).getInformerConfig().getItemStore())
          .as(reconciler.getClass().getSimpleName())
          .isInstanceOf(LeanItemStore.class);
    }
  }

  @Test
  void anObjectWithoutMetadataIsStoredAsItIs() {
    LeanItemStore<Pod> store = new LeanItemStore<>();
    Pod bare = new Pod();

    store.put("x", bare);

    assertThat(store.get("x")).isSameAs(bare);
  }

  /**
   * The stored object, written back to JSON, is the watched one minus {@code
   * metadata.managedFields}: no field any reader might use is lost or changed.
   */
  private static <T extends HasMetadata> void assertOnlyManagedFieldsDropped(
      String yaml, Class<T> kind) throws Exception {
    T watched = Serialization.unmarshal(yaml, kind);
    assertThat(watched.getMetadata().getManagedFields()).hasSize(2);
    ObjectNode expected = (ObjectNode) JSON.readTree(Serialization.asJson(watched));
    ((ObjectNode) expected.get("metadata")).remove("managedFields");
    LeanItemStore<T> store = new LeanItemStore<>();

    store.put(store.getKey(watched), watched);

    T stored = store.get("team/train");
    assertThat(stored.getMetadata().getManagedFields()).isNull();
    JsonNode actual = JSON.readTree(Serialization.asJson(stored));
    assertThat(actual).isEqualTo(expected);
    assertThat(actual.at("/metadata/ownerReferences/0/uid").asText()).isEqualTo("1f1c");
    assertThat(actual.at("/spec").isEmpty()).isFalse();
    assertThat(actual.at("/status").isEmpty()).isFalse();
  }
}
