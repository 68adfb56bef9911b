package dev.berth.operator.admission;

import dev.berth.api.v1beta1.ClusterQueue;
import dev.berth.api.v1beta1.Cohort;
import dev.berth.api.v1beta1.LocalQueue;
import dev.berth.api.v1beta1.ResourceFlavor;
import dev.berth.api.v1beta1.Workload;
import dev.berth.webhook.validation.BerthValidators;
import dev.berth.webhook.validation.FieldError;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.Comparator;
import java.util.List;
import java.util.function.BiPredicate;
import java.util.function.Consumer;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Rebuilds the loop's state from a read of the API server. Admitted workloads are fed before
 * pending ones, oldest admission first, so the first cycle sees every reservation a previous leader
 * made. Objects are checked with the same validators as the reconcilers use: an invalid one is
 * ignored with a Warning (as a reconciler would), and one object that cannot be fed is logged and
 * skipped rather than failing the whole bootstrap.
 */
public final class Bootstrap {
  private static final Logger log = LoggerFactory.getLogger(Bootstrap.class);

  private final KubernetesClient client;
  private final BiPredicate<HasMetadata, List<FieldError>> accepts;

  /** {@code accepts} says whether an object with these errors may be fed (and reports it). */
  public Bootstrap(KubernetesClient client, BiPredicate<HasMetadata, List<FieldError>> accepts) {
    this.client = client;
    this.accepts = accepts;
  }

  public void load(ClusterState state) {
    feed(
        client.resources(dev.berth.api.v1beta1.Topology.class).list().getItems(),
        BerthValidators::topology,
        state::topology);
    feed(client.nodes().list().getItems(), n -> List.of(), state::node);
    // Bound pods before workloads: the first cycle must not place onto capacity already in use.
    feed(client.pods().inAnyNamespace().list().getItems(), p -> List.of(), state::pod);
    feed(
        client.resources(ResourceFlavor.class).list().getItems(),
        BerthValidators::resourceFlavor,
        state::flavor);
    feed(client.resources(Cohort.class).list().getItems(), BerthValidators::cohort, state::cohort);
    feed(
        client.resources(ClusterQueue.class).list().getItems(),
        BerthValidators::clusterQueue,
        state::clusterQueue);
    feed(
        client.resources(dev.berth.api.v1beta1.AdmissionCheck.class).list().getItems(),
        BerthValidators::admissionCheck,
        state::admissionCheck);
    feed(
        client.namespaces().list().getItems(),
        n -> List.of(),
        (Namespace ns) ->
            state.namespace(ns.getMetadata().getName(), ns.getMetadata().getLabels()));
    feed(
        client.resources(LocalQueue.class).inAnyNamespace().list().getItems(),
        BerthValidators::localQueue,
        state::localQueue);
    feed(
        admittedFirst(client.resources(Workload.class).inAnyNamespace().list().getItems()),
        BerthValidators::workload,
        state::workload);
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
