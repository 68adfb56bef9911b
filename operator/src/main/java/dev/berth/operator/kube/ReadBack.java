package dev.berth.operator.kube;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One write sent once through the writing client (no retry by fabric8), its unknown outcome (no
 * reply, a 5xx: {@link ApiErrors#outcomeUnknown}) read back: applied when the object read is the
 * same one at a newer version and shows what was written. An applied write goes on as written (its
 * Event is recorded once); one not applied, or a read that fails too, throws the write's failure
 * and its caller tries again from a copy it holds (a reconcile from the informer's, a publisher
 * from its state), where a write at the old version is refused if it was applied after all. Used
 * for a Job's or JobSet's start and suspension and a Workload's Finished, ResourceFlavor capacity
 * statuses and UsageReports.
 */
public final class ReadBack {
  private static final Logger log = LoggerFactory.getLogger(ReadBack.class);

  private ReadBack() {}

  /**
   * Sends {@code write} for {@code desired} (which carries the resourceVersion it was made from);
   * on an unknown outcome reads it back and returns the stored object if it {@code shows} the
   * write. Returns what {@code write} returned otherwise.
   */
  public static <T extends HasMetadata> T write(
      KubernetesClient client, T desired, Function<T, ? extends T> write, Predicate<T> shows) {
    try {
      return write.apply(desired);
    } catch (KubernetesClientException e) {
      if (!ApiErrors.outcomeUnknown(e)) {
        throw e;
      }
      T read = client.resource(desired).get();
      boolean applied = applied(desired, read, shows);
      log.info(
          "write of {} {}/{} with unknown outcome ({}) read back: {}",
          desired.getKind(),
          desired.getMetadata().getNamespace(),
          desired.getMetadata().getName(),
          e.getCode(),
          applied ? "WRITTEN" : "NOT_WRITTEN");
      if (!applied) {
        throw e;
      }
      return read;
    }
  }

  /**
   * Whether {@code read}, the object as stored after a write of {@code desired} whose outcome is
   * unknown, shows that write applied: the same object (its uid) at a version other than the one
   * the write was made from, showing what was written. Null (gone) is not applied.
   */
  static <T extends HasMetadata> boolean applied(T desired, T read, Predicate<T> shows) {
    return read != null
        && Objects.equals(read.getMetadata().getUid(), desired.getMetadata().getUid())
        && !Objects.equals(
            read.getMetadata().getResourceVersion(), desired.getMetadata().getResourceVersion())
        && shows.test(read);
  }
}
