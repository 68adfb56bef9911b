package dev.berth.operator.integration.kubeflow;

import dev.berth.operator.informers.Informers;
import dev.berth.operator.kube.LeanItemStore;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import io.javaoperatorsdk.operator.processing.event.source.informer.Mappers;
import java.util.List;

/**
 * The pods of a training operator kind, as an event source of its reconciler. An evicted job's
 * quota goes back once its last pod is gone, and that changes nothing of the job: the training
 * operator zeroed its counts when it deleted the pods. So the pods' own events bring the reconcile
 * that releases it.
 */
final class KubeflowJobPods {
  private KubeflowJobPods() {}

  static <T extends HasMetadata> List<EventSource<?, T>> eventSource(
      EventSourceContext<T> context, Class<T> type, String operatorName) {
    var pods =
        InformerEventSourceConfiguration.from(Pod.class, type)
            .withItemStore(new LeanItemStore<>())
            .withInformerListLimit(Informers.LIST_LIMIT)
            .withName(operatorName + "-pods")
            .withSecondaryToPrimaryMapper(Mappers.fromOwnerReferences(type, false))
            .withLabelSelector(KubeflowJobAdapter.OPERATOR_NAME_LABEL + "=" + operatorName)
            .build();
    InformerEventSource<Pod, T> source = new InformerEventSource<>(pods, context);
    return List.of(source);
  }
}
