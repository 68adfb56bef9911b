package dev.berth.operator.kube;

import dev.berth.operator.admission.UnknownOutcome;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One write of the lifecycle (a start, a suspension, a finish) sent once, its unknown outcome (no
 * reply, a 5xx) read back: applied when the object read is the same one at a newer version and
 * shows what was written. An applied write goes on as written (its Event is recorded once); one not
 * applied, or a read that fails too, throws the write's failure and the reconcile is retried from
 * the informer's copy, where a write at the old version is refused if it was applied after all.
 */
final class ReadBack {
  private static final Logger log = LoggerFactory.getLogger(ReadBack.class);

  private ReadBack() {}

  /**
   * Sends {@code write} for {@code desired} (which carries the resourceVersion it was made from);
   * on an unknown outcome reads it back and returns normally if the stored object {@code shows} it.
   */
  static <T extends HasMetadata> void write(
      KubernetesClient client, T desired, Function<T, ?> write, Predicate<T> shows) {
    String decidedOn = desired.getMetadata().getResourceVersion();
    try {
      write.apply(desired);
    } catch (KubernetesClientException e) {
      if (!UnknownOutcome.of(e)) {
        throw e;
      }
      T read = client.resource(desired).get();
      boolean applied =
          read != null
              && Objects.equals(read.getMetadata().getUid(), desired.getMetadata().getUid())
              && !Objects.equals(read.getMetadata().getResourceVersion(), decidedOn)
              && shows.test(read);
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
    }
  }
}
