package dev.berth.operator.kube;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.client.informers.cache.BasicItemStore;
import io.fabric8.kubernetes.client.informers.cache.Cache;

/**
 * The store behind every Berth informer: the informer's own map, keyed as fabric8's default, with
 * {@code metadata.managedFields} dropped from each object as it is stored (client-go's informers
 * offer the same through a transform). Berth never reads managedFields, and they are often the
 * largest part of a Workload's, Job's or Pod's metadata: one entry per writer with the field set it
 * owns, so an object written by the Job controller, the scheduler, the kubelet and Berth holds
 * four. Writes are unaffected: the API server keeps the live object's managedFields on any write
 * that omits them (it takes an empty list for a client that does not know them), so a Berth write
 * based on a cached object leaves them as they were.
 *
 * <p>The object is changed in place, before fabric8 hands it to the event handlers: the stored
 * object and the one in the event are the same instance, freshly read from the watch or the list
 * and not yet seen by anyone else, so every reader sees the same lean object.
 *
 * <p>Named in each reconciler's {@code @Informer(itemStore = ...)} (JOSDK instantiates it by its
 * no-argument constructor) and passed to the secondary informers' configurations. JOSDK would hand
 * one configuration's store to each namespace's informer if a controller watched a list of
 * namespaces; Berth's watch all namespaces, one informer per configuration, so none is shared.
 */
public class LeanItemStore<T extends HasMetadata> extends BasicItemStore<T> {
  public LeanItemStore() {
    super(Cache::metaNamespaceKeyFunc);
  }

  @Override
  public T put(String key, T obj) {
    return super.put(key, lean(obj));
  }

  /**
   * Drops what Berth never reads from an object about to be kept (cached, or held as the reply of
   * one of Berth's own writes); returns it.
   */
  public static <T extends HasMetadata> T lean(T obj) {
    ObjectMeta metadata = obj.getMetadata();
    if (metadata != null) {
      metadata.setManagedFields(null);
    }
    return obj;
  }
}
