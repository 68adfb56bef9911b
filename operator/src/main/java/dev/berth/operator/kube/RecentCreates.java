package dev.berth.operator.kube;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.dependent.RecentOperationCacheFiller;
import io.javaoperatorsdk.operator.processing.event.ResourceID;

/**
 * An object a reconcile just created, put into its secondary informer's cache until the informer's
 * own event for it comes, so that a reconcile before then finds it. JOSDK offers that cache (its
 * temporary resource cache) to dependent resources; Berth's reconcilers create their Workloads
 * themselves, so they reach it through the interface JOSDK 5.2's {@code InformerEventSource}
 * implements. It does not bring back an object whose deletion the informer has already seen.
 */
public final class RecentCreates {
  private RecentCreates() {}

  /** Puts {@code created} into the cache of the context's event source for {@code kind}. */
  public static <P extends HasMetadata, R extends HasMetadata> void remember(
      Context<P> context, Class<R> kind, R created) {
    var source = context.eventSourceRetriever().getEventSourceFor(kind);
    if (source instanceof RecentOperationCacheFiller<?> filler) {
      @SuppressWarnings("unchecked")
      RecentOperationCacheFiller<R> cache = (RecentOperationCacheFiller<R>) filler;
      cache.handleRecentResourceCreate(ResourceID.fromResource(created), created);
    }
  }
}
