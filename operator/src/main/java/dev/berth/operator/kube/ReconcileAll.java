package dev.berth.operator.kube;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.javaoperatorsdk.operator.processing.event.Event;
import io.javaoperatorsdk.operator.processing.event.EventHandler;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.AbstractEventSource;
import io.javaoperatorsdk.operator.processing.event.source.IndexerResourceCache;
import java.util.Set;

/**
 * An event source a reconciler adds to be asked, from outside JOSDK, to reconcile every object of
 * its primary cache once (something they all depend on changed, e.g. a CRD was installed). Here, in
 * kube, because it builds on JOSDK's event processing (an {@code AbstractEventSource} and its
 * handler) rather than on what JOSDK documents for reconcilers. Its resource type is only a name:
 * it has no secondary resources.
 *
 * @param <R> what the events stand for, e.g. {@code CustomResourceDefinition}
 * @param <P> the reconciler's primary kind
 */
public final class ReconcileAll<R, P extends HasMetadata> extends AbstractEventSource<R, P> {
  private volatile IndexerResourceCache<P> primaries;

  public ReconcileAll(Class<R> about, String name) {
    super(about, name);
  }

  /** The primary cache whose objects {@link #fire} reconciles; from prepareEventSources. */
  public ReconcileAll<R, P> of(IndexerResourceCache<P> primaries) {
    this.primaries = primaries;
    return this;
  }

  /**
   * An event for every object of the primary cache; nothing before the source has started (the
   * reconciler's first reconcile of each object is still to come then).
   */
  public void fire() {
    EventHandler handler = getEventHandler();
    IndexerResourceCache<P> cache = primaries;
    if (handler == null || cache == null || !isRunning()) {
      return;
    }
    cache.list().forEach(p -> handler.handleEvent(new Event(ResourceID.fromResource(p))));
  }

  @Override
  public Set<R> getSecondaryResources(P primary) {
    return Set.of();
  }
}
