package dev.berth.operator.admission;

import dev.berth.api.v1beta1.AdmissionCheck;
import dev.berth.api.v1beta1.ClusterQueue;
import dev.berth.api.v1beta1.Cohort;
import dev.berth.api.v1beta1.LocalQueue;
import dev.berth.api.v1beta1.ResourceFlavor;
import dev.berth.api.v1beta1.Topology;
import dev.berth.api.v1beta1.Workload;
import dev.berth.operator.informers.InformerCaches;
import dev.berth.webhook.validation.BerthValidators;
import dev.berth.webhook.validation.FieldError;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.function.BiPredicate;
import java.util.function.Consumer;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Rebuilds the loop's state from the reconcilers' informer caches once every informer has synced:
 * each cache holds what its informer's first list found (paginated, {@link
 * dev.berth.operator.informers.Informers#LIST_LIMIT} objects a page) and every event since. This is
 * not one consistent read of the cluster: each kind is as of its own informer, a little apart in
 * time. That is enough because the loop decides nothing before the bootstrap, the events that
 * follow the caches' contents are applied after it (older versions of a Workload than the one fed
 * are ignored), and an admission observed after the bootstrap that the engine did not decide is
 * checked against the quota ({@link ClusterState#workload}).
 *
 * <p>Admitted workloads are fed before pending ones, oldest admission first, so the first cycle
 * sees every reservation a previous leader made, with its admission time. Objects are checked with
 * the same validators as the reconcilers use: an invalid one is ignored with a Warning (as a
 * reconciler would), and one object that cannot be fed is logged and skipped rather than failing
 * the whole bootstrap. Nothing here asks the API server.
 */
public final class Bootstrap {
  private static final Logger log = LoggerFactory.getLogger(Bootstrap.class);

  private final InformerCaches caches;
  private final BiPredicate<HasMetadata, List<FieldError>> accepts;
  private final List<Consumer<ClusterState>> then = new java.util.ArrayList<>();

  /** {@code accepts} says whether an object with these errors may be fed (and reports it). */
  public Bootstrap(InformerCaches caches, BiPredicate<HasMetadata, List<FieldError>> accepts) {
    this.caches = caches;
    this.accepts = accepts;
  }

  /**
   * Also runs {@code loader} at the end of each load, before the first cycle: a side ledger that
   * must be in force when the first decision is made (spent budgets) loads its objects there.
   */
  public Bootstrap then(Consumer<ClusterState> loader) {
    then.add(loader);
    return this;
  }

  /** Waits up to {@code timeout} for every informer's first list; true once they have synced. */
  boolean awaitSynced(Duration timeout) throws InterruptedException {
    return caches.awaitSynced(timeout);
  }

  public void load(ClusterState state) {
    if (!caches.isSynced()) {
      throw new IllegalStateException("the informers have not synced yet");
    }
    long started = System.nanoTime();
    feed(caches.list(Topology.class), BerthValidators::topology, state::topology);
    feed(caches.list(Node.class), n -> List.of(), state::node);
    // Bound pods before workloads: the first cycle must not place onto capacity already in use.
    feed(caches.list(Pod.class), p -> List.of(), state::pod);
    feed(caches.list(ResourceFlavor.class), BerthValidators::resourceFlavor, state::flavor);
    feed(caches.list(Cohort.class), BerthValidators::cohort, state::cohort);
    feed(caches.list(ClusterQueue.class), BerthValidators::clusterQueue, state::clusterQueue);
    feed(caches.list(AdmissionCheck.class), BerthValidators::admissionCheck, state::admissionCheck);
    feed(
        caches.list(Namespace.class),
        n -> List.of(),
        (Namespace ns) ->
            state.namespace(ns.getMetadata().getName(), ns.getMetadata().getLabels()));
    feed(caches.list(LocalQueue.class), BerthValidators::localQueue, state::localQueue);
    List<Workload> workloads = admittedFirst(caches.list(Workload.class));
    feed(workloads, BerthValidators::workload, state::workload);
    then.forEach(loader -> loader.accept(state));
    log.info(
        "bootstrap: {} workloads fed from the informer caches in {} ms",
        workloads.size(),
        (System.nanoTime() - started) / 1_000_000);
  }

  /** Workloads holding quota first, oldest admission first; then the pending ones. */
  static List<Workload> admittedFirst(List<Workload> workloads) {
    return workloads.stream()
        .sorted(
            Comparator.comparing((Workload w) -> !StatusConditions.hasQuotaReserved(w))
                .thenComparingLong(
                    w -> StatusConditions.hasQuotaReserved(w) ? ClusterState.admittedAt(w) : 0))
        .toList();
  }

  <T extends HasMetadata> void feed(
      List<T> objects, Function<T, List<FieldError>> validator, Consumer<T> into) {
    for (T object : objects) {
      try {
        if (accepts.test(object, validator.apply(object))) {
          into.accept(object);
        }
      } catch (RuntimeException e) {
        log.error(
            "bootstrap: {} {} could not be fed and is skipped until its next event",
            object.getKind(),
            name(object),
            e);
      }
    }
  }

  private static String name(HasMetadata o) {
    String ns = o.getMetadata().getNamespace();
    return ns == null ? o.getMetadata().getName() : ns + "/" + o.getMetadata().getName();
  }
}
