package dev.berth.operator.kube;

import dev.berth.api.v1beta1.Workload;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.javaoperatorsdk.operator.api.config.Cloner;

/**
 * What JOSDK hands each reconcile: a copy of the cached object (its default, a JSON round trip),
 * except a Workload, which is handed as cached. Every Workload change is reconciled, four or more
 * per workload, and the Workload reconcile only reads its object and gives it to the admission
 * loop, which keeps the informers' instance of that version anyway ({@code SharedVersions}): the
 * copy, and the second one the reconcile used to make, were 4 % of the operator's CPU on the
 * 15,000-workload benchmark and garbage at once. Nothing changes a Workload it reads from the loop:
 * every write starts from a copy of its own ({@link Copies}).
 */
public final class ReconcileCopies implements Cloner {
  private final KubernetesSerialization serialization;

  public ReconcileCopies(KubernetesSerialization serialization) {
    this.serialization = serialization;
  }

  @Override
  public <R extends HasMetadata> R clone(R object) {
    if (object instanceof Workload) {
      return object;
    }
    return serialization.clone(object);
  }
}
