package dev.berth.operator.kube;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import java.util.Optional;

/**
 * A secondary resource read by name from the cache of the reconciler's informer for its kind,
 * whichever primary it maps to (JOSDK's secondary lookup finds only those mapped to the primary
 * being reconciled).
 */
public final class CachedByName {
  private CachedByName() {}

  /** The object {@code name} of {@code namespace} in the informer of {@code kind}, if cached. */
  public static <P extends HasMetadata, R extends HasMetadata> Optional<R> get(
      Context<P> context, Class<R> kind, String namespace, String name) {
    var source = context.eventSourceRetriever().getEventSourceFor(kind);
    if (source instanceof InformerEventSource<?, ?> informer) {
      @SuppressWarnings("unchecked")
      InformerEventSource<R, P> typed = (InformerEventSource<R, P>) informer;
      return typed.get(new ResourceID(name, namespace));
    }
    throw new IllegalStateException("no informer of " + kind.getSimpleName());
  }
}
