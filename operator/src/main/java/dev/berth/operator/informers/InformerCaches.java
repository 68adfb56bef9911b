package dev.berth.operator.informers;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.javaoperatorsdk.operator.processing.event.source.IndexerResourceCache;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;

/**
 * The reconcilers' informer caches by kind, so that the bootstrap and cross-reference lookups (the
 * Workloads holding quota in a ClusterQueue, the pods of a podSet) read what the informers already
 * hold instead of listing the cluster. Each reconciler adds its primary cache, with the indexes it
 * defines, while JOSDK prepares its event sources (before any informer starts); the operator marks
 * them synced once every informer has listed (JOSDK's start returns only then).
 *
 * <p>Objects read from here are the informer's own: callers never mutate them (the writers copy
 * before they change anything).
 */
public final class InformerCaches {
  private final Map<Class<?>, IndexerResourceCache<?>> caches = new ConcurrentHashMap<>();
  private final CompletableFuture<Void> synced = new CompletableFuture<>();

  /** A reconciler's primary cache; indexes must be added to it before its informer starts. */
  public <T extends HasMetadata> void add(Class<T> kind, IndexerResourceCache<T> cache) {
    if (caches.putIfAbsent(kind, cache) != null) {
      throw new IllegalStateException("a cache of " + kind.getSimpleName() + " is already added");
    }
  }

  /**
   * For a reconciler's {@code prepareEventSources}: adds its primary cache (with the indexes given,
   * {@code name → keys of an object}) and asks for no other event source.
   */
  public <T extends HasMetadata> List<EventSource<?, T>> primary(
      Class<T> kind,
      EventSourceContext<T> context,
      Map<String, Function<T, List<String>>> indexes) {
    IndexerResourceCache<T> cache = context.getPrimaryCache();
    if (!indexes.isEmpty()) {
      cache.addIndexers(indexes);
    }
    add(kind, cache);
    return List.of();
  }

  /** Every object of the kind the informer holds now. */
  public <T extends HasMetadata> List<T> list(Class<T> kind) {
    return cache(kind).list().toList();
  }

  /** The object {@code namespace/name} of the kind, if the informer holds it. */
  public <T extends HasMetadata> java.util.Optional<T> get(
      Class<T> kind, String namespace, String name) {
    return cache(kind)
        .get(new io.javaoperatorsdk.operator.processing.event.ResourceID(name, namespace));
  }

  /** The objects the index maps {@code key} to (none when nothing does). */
  public <T extends HasMetadata> List<T> byIndex(Class<T> kind, String index, String key) {
    return cache(kind).byIndex(index, key);
  }

  @SuppressWarnings("unchecked")
  private <T extends HasMetadata> IndexerResourceCache<T> cache(Class<T> kind) {
    IndexerResourceCache<T> cache = (IndexerResourceCache<T>) caches.get(kind);
    if (cache == null) {
      throw new IllegalStateException(
          "no informer cache of " + kind.getSimpleName() + " (its reconciler is not registered)");
    }
    return cache;
  }

  /** Every informer has listed what was there at its start. */
  public void markSynced() {
    synced.complete(null);
  }

  /** Waits up to {@code timeout} for {@link #markSynced}; true once it happened. */
  public boolean awaitSynced(Duration timeout) throws InterruptedException {
    try {
      synced.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
      return true;
    } catch (TimeoutException e) {
      return false;
    } catch (ExecutionException e) {
      throw new IllegalStateException(e.getCause());
    }
  }

  public boolean isSynced() {
    return synced.isDone();
  }
}
