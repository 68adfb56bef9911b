package dev.berth.operator.reconciler;

import dev.berth.api.v1beta1.Berth;
import dev.berth.operator.kube.ApiErrors;
import dev.berth.operator.kube.Copies;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.ArrayList;
import java.util.List;

/** The resource-in-use finalizer, written with the object's resourceVersion. */
final class Finalizers {
  private Finalizers() {}

  static boolean isDeleting(HasMetadata object) {
    return object.getMetadata().getDeletionTimestamp() != null;
  }

  static <T extends HasMetadata> T copy(T object) {
    return Copies.deep(object);
  }

  /**
   * Adds the finalizer when missing; returns the object as stored now. The operator's own status
   * writes race with this update, so a conflict is retried on the freshly read object.
   */
  static <T extends HasMetadata> T ensure(KubernetesClient client, T object) {
    T current = object;
    for (int attempt = 0; ; attempt++) {
      List<String> finalizers = current.getMetadata().getFinalizers();
      if (finalizers != null && finalizers.contains(Berth.RESOURCE_IN_USE_FINALIZER)) {
        return current;
      }
      T copy = copy(current);
      List<String> updated = new ArrayList<>(finalizers == null ? List.of() : finalizers);
      updated.add(Berth.RESOURCE_IN_USE_FINALIZER);
      copy.getMetadata().setFinalizers(updated);
      try {
        return client.resource(copy).update();
      } catch (KubernetesClientException e) {
        if (!ApiErrors.conflict(e) || attempt >= 4) {
          throw e;
        }
        current = client.resource(object).get();
        if (current == null || isDeleting(current)) {
          return object;
        }
      }
    }
  }

  static <T extends HasMetadata> void remove(KubernetesClient client, T object) {
    List<String> finalizers = object.getMetadata().getFinalizers();
    if (finalizers == null || !finalizers.contains(Berth.RESOURCE_IN_USE_FINALIZER)) {
      return;
    }
    T copy = copy(object);
    List<String> updated = new ArrayList<>(finalizers);
    updated.remove(Berth.RESOURCE_IN_USE_FINALIZER);
    copy.getMetadata().setFinalizers(updated);
    client.resource(copy).update();
  }
}
