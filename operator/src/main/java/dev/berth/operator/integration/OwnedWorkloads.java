package dev.berth.operator.integration;

import dev.berth.api.v1beta1.Berth;
import dev.berth.api.v1beta1.Workload;
import dev.berth.operator.informers.Informers;
import dev.berth.operator.kube.CachedByName;
import dev.berth.operator.kube.RecentCreates;
import dev.berth.operator.kube.SharedLeanItemStore;
import dev.berth.operator.kube.SharedVersions;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import io.javaoperatorsdk.operator.processing.event.source.informer.Mappers;
import java.util.Optional;

/** The Workloads an integration owns, mapped to their owner through the ownerReference. */
public final class OwnedWorkloads {
  private OwnedWorkloads() {}

  /** Workloads labelled with {@code ownerKinds}' owner kinds, mapped to their owners. */
  static <P extends HasMetadata> InformerEventSource<Workload, P> eventSource(
      EventSourceContext<P> context,
      Class<P> ownerType,
      java.util.List<String> ownerKinds,
      SharedVersions versions) {
    var configuration =
        InformerEventSourceConfiguration.from(Workload.class, ownerType)
            .withItemStore(new SharedLeanItemStore<>(versions))
            .withInformerListLimit(Informers.LIST_LIMIT)
            .withSecondaryToPrimaryMapper(Mappers.fromOwnerReferences(ownerType, false))
            .withLabelSelector(
                ownerKinds.size() == 1
                    ? Berth.OWNER_KIND_LABEL + "=" + ownerKinds.get(0)
                    : Berth.OWNER_KIND_LABEL + " in (" + String.join(",", ownerKinds) + ")")
            .build();
    return new InformerEventSource<>(configuration, context);
  }

  /**
   * A Workload the reconcile just created, into the informer's cache until the informer's own event
   * for it comes, so that a reconcile before then finds it (JOSDK's temporary resource cache; it
   * will not bring back a Workload whose deletion the informer has already seen).
   */
  static <P extends HasMetadata> void created(Context<P> context, Workload workload) {
    RecentCreates.remember(context, Workload.class, workload);
  }

  /**
   * The Workload {@code name} of {@code namespace} from the informer's cache, whoever it names as
   * owners (a pod group's Workload is found by its replacement pods before they join its owners).
   */
  public static <P extends HasMetadata> Optional<Workload> byName(
      Context<P> context, String namespace, String name) {
    return CachedByName.get(context, Workload.class, namespace, name);
  }

  /** {@link RecentCreates#remember}, for the Workload a kind's own code created. */
  public static <P extends HasMetadata> void remember(Context<P> context, Workload workload) {
    created(context, workload);
  }

  static <P extends HasMetadata> Optional<Workload> find(Context<P> context, String name) {
    return context.getSecondaryResources(Workload.class).stream()
        .filter(w -> w.getMetadata().getName().equals(name))
        .findFirst();
  }
}
