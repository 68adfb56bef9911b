package dev.berth.operator.integration.ray;

import dev.berth.operator.informers.Informers;
import dev.berth.operator.kube.LeanItemStore;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import java.util.List;
import java.util.Set;

/**
 * The pods of Ray clusters, as an event source of a Ray reconciler: the last pod of an evicted
 * cluster going away changes nothing of the RayCluster or RayJob KubeRay may already have marked
 * suspended, yet it is when the quota may go back. Selected by the label naming their owner, so
 * that no other pod is cached.
 */
final class RayPods {
  private RayPods() {}

  /** Pods labelled {@code label}, each an event for the object of the label's value. */
  static <T extends HasMetadata> List<EventSource<?, T>> byLabel(
      EventSourceContext<T> context, Class<T> owner, String label, String sourceName) {
    var config =
        InformerEventSourceConfiguration.from(Pod.class, owner)
            .withItemStore(new LeanItemStore<>())
            .withInformerListLimit(Informers.LIST_LIMIT)
            .withName(sourceName)
            .withSecondaryToPrimaryMapper(
                (Pod pod) -> {
                  var labels = pod.getMetadata().getLabels();
                  String primary = labels == null ? null : labels.get(label);
                  return primary == null
                      ? Set.of()
                      : Set.of(new ResourceID(primary, pod.getMetadata().getNamespace()));
                })
            .withLabelSelector(label)
            .build();
    return List.of(new InformerEventSource<>(config, context));
  }
}
