package dev.berth.operator.kube;

import io.fabric8.kubernetes.api.model.HasMetadata;
import java.lang.ref.ReferenceQueue;
import java.lang.ref.WeakReference;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One instance per object version for the holders that keep the same objects: the Workload
 * reconciler's informer, the provisioning check's, the Job and JobSet reconcilers' informers of the
 * Workloads they own, and the admission loop's state each read every Workload version apart
 * (separate watches, and JOSDK hands each reconcile a copy), and kept three copies of each Workload
 * in memory (29,925 Workload objects for 10,000 Workloads in the KWOK scale benchmark). Each holder
 * passes what it keeps through {@link #intern}: a version already kept elsewhere comes back as that
 * instance, and the duplicate is left to the collector.
 *
 * <p>Objects kept are never changed in place by anyone (the writers copy before they change
 * anything), so sharing them is safe. Entries are weak: an instance no holder keeps any more goes,
 * and its entry with it. One per operator, keyed by uid, which the API server makes unique.
 */
public final class SharedVersions {
  private final Map<String, Entry> entries = new ConcurrentHashMap<>();
  private final ReferenceQueue<HasMetadata> gone = new ReferenceQueue<>();

  private static final class Entry extends WeakReference<HasMetadata> {
    final String uid;

    Entry(String uid, HasMetadata object, ReferenceQueue<HasMetadata> gone) {
      super(object, gone);
      this.uid = uid;
    }
  }

  /**
   * The instance already kept of {@code object}'s version (same kind, uid and resourceVersion), or
   * {@code object} itself, from now on the one handed out for that version.
   */
  public <T extends HasMetadata> T intern(T object) {
    expunge();
    var metadata = object.getMetadata();
    if (metadata == null || metadata.getUid() == null || metadata.getResourceVersion() == null) {
      return object;
    }
    String uid = metadata.getUid();
    Entry entry = entries.get(uid);
    HasMetadata known = entry == null ? null : entry.get();
    if (known != null
        && known.getClass() == object.getClass()
        && Objects.equals(
            known.getMetadata().getResourceVersion(), metadata.getResourceVersion())) {
      @SuppressWarnings("unchecked")
      T same = (T) known;
      return same;
    }
    if (known == null || !isOlder(metadata.getResourceVersion(), known)) {
      // A holder late with an older version (a reconcile's copy) keeps its own instance and does
      // not take the entry from the newer one the others are about to receive.
      entries.put(uid, new Entry(uid, object, gone));
    }
    return object;
  }

  /**
   * The instance kept of that version of the object of {@code type} with {@code uid}, or null: what
   * a watch that hears a version another holder already keeps hands out instead of decoding it
   * again ({@link WatchEventDecoder}).
   */
  public HasMetadata known(Class<?> type, String uid, String resourceVersion) {
    Entry entry = entries.get(uid);
    HasMetadata known = entry == null ? null : entry.get();
    if (known != null
        && known.getClass() == type
        && resourceVersion.equals(known.getMetadata().getResourceVersion())) {
      return known;
    }
    return null;
  }

  private static boolean isOlder(String resourceVersion, HasMetadata known) {
    try {
      return Long.parseLong(resourceVersion)
          < Long.parseLong(known.getMetadata().getResourceVersion());
    } catch (NumberFormatException e) {
      return false;
    }
  }

  private void expunge() {
    for (var collected = gone.poll(); collected != null; collected = gone.poll()) {
      Entry entry = (Entry) collected;
      entries.remove(entry.uid, entry);
    }
  }
}
