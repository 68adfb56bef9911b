package dev.berth.operator.kube;

import dev.berth.api.v1beta1.PodSet;
import dev.berth.api.v1beta1.Workload;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.javaoperatorsdk.operator.api.config.ControllerConfigurationOverrider;
import java.util.function.Consumer;

/**
 * A {@link LeanItemStore} for a kind that more than one informer watches (Workloads): each version
 * is stored as the one instance the operator's {@link SharedVersions} hands out, so the informers
 * keep one copy between them. fabric8 still hands its event handlers the object it read; the store
 * keeps the shared one, which is what every cache read returns.
 */
public class SharedLeanItemStore<T extends HasMetadata> extends LeanItemStore<T> {
  private final SharedVersions versions;

  public SharedLeanItemStore(SharedVersions versions) {
    this.versions = versions;
  }

  /**
   * For {@code Operator.register}: a reconciler's primary informer stores in a SharedLeanItemStore
   * of {@code versions} instead of the LeanItemStore its annotation names (JOSDK builds that one by
   * its no-argument constructor, so it cannot be handed the operator's SharedVersions).
   */
  public static <R extends HasMetadata> Consumer<ControllerConfigurationOverrider<R>> primary(
      SharedVersions versions) {
    return override -> override.withItemStore(new SharedLeanItemStore<>(versions));
  }

  @Override
  public T put(String key, T obj) {
    share(obj);
    return super.put(key, versions.intern(lean(obj)));
  }

  /** The empty collections of its metadata and pod templates shared ({@link SharedEmpties}). */
  private static void share(HasMetadata obj) {
    SharedEmpties.share(obj.getMetadata());
    if (obj instanceof Workload w && w.getSpec() != null && w.getSpec().podSets != null) {
      for (PodSet ps : w.getSpec().podSets) {
        SharedEmpties.share(ps.template);
      }
    }
  }
}
