package dev.berth.e2e.faults;

import dev.berth.api.v1beta1.Berth;
import dev.berth.api.v1beta1.Workload;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ListOptions;
import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.List;

/**
 * What etcd held at one revision, read back through the API server ({@code
 * resourceVersionMatch=Exact}): the {@link InvariantWatcher} takes its verdicts from here, not from
 * its watch streams, which run on their own and may be behind one another. Selected by the owning
 * Job's UID; the selection is only a narrowing, the watcher still matches owner references itself.
 */
interface AtRevision {
  /**
   * The namespace's Workloads at {@code revision}; with {@code jobUid}, those labelled as the Job's
   * ({@value Berth#OWNER_UID_LABEL}), or all when null.
   */
  List<Workload> workloads(long revision, String jobUid);

  /**
   * The namespace's pods at {@code revision}; with {@code jobUid}, those the Job controller
   * labelled as the Job's ({@code batch.kubernetes.io/controller-uid}), or all when null.
   */
  List<Pod> pods(long revision, String jobUid);

  /** The API server of {@code client}, in {@code namespace}. */
  static AtRevision of(KubernetesClient client, String namespace) {
    return new AtRevision() {
      @Override
      public List<Workload> workloads(long revision, String jobUid) {
        return client
            .resources(Workload.class)
            .inNamespace(namespace)
            .list(exact(revision, jobUid == null ? null : Berth.OWNER_UID_LABEL + "=" + jobUid))
            .getItems();
      }

      @Override
      public List<Pod> pods(long revision, String jobUid) {
        return client
            .pods()
            .inNamespace(namespace)
            .list(
                exact(
                    revision,
                    jobUid == null ? null : "batch.kubernetes.io/controller-uid=" + jobUid))
            .getItems();
      }
    };
  }

  private static ListOptions exact(long revision, String labelSelector) {
    return new ListOptionsBuilder()
        .withResourceVersion(Long.toString(revision))
        .withResourceVersionMatch("Exact")
        .withLabelSelector(labelSelector)
        .build();
  }

  /** Whether {@code object} names the Job {@code jobUid} among its owners. */
  static boolean ownedBy(HasMetadata object, String jobUid) {
    return object.getMetadata().getOwnerReferences() != null
        && object.getMetadata().getOwnerReferences().stream()
            .anyMatch(o -> "Job".equals(o.getKind()) && jobUid.equals(o.getUid()));
  }
}
