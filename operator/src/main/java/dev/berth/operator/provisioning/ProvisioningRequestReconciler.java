package dev.berth.operator.provisioning;

import dev.berth.api.v1beta1.AdmissionCheck;
import dev.berth.api.v1beta1.ProvisioningRequestConfig;
import dev.berth.api.v1beta1.Workload;
import dev.berth.operator.informers.Informers;
import dev.berth.operator.kube.LeanItemStore;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.javaoperatorsdk.operator.processing.event.source.IndexerResourceCache;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import io.javaoperatorsdk.operator.processing.event.source.informer.Mappers;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Workloads, for the built-in provisioning check ({@link ProvisioningCheck}): reconciled when a
 * Workload, a ProvisioningRequest it owns, an AdmissionCheck it lists or the
 * ProvisioningRequestConfig of such a check changes. Registered only when the ProvisioningRequest
 * CRD is installed.
 */
// Not generation-aware: the reservation and the check states are status changes.
@ControllerConfiguration(
    name = "provisioning-requests",
    generationAwareEventProcessing = false,
    informer = @Informer(informerListLimit = Informers.LIST_LIMIT, itemStore = LeanItemStore.class))
public final class ProvisioningRequestReconciler implements Reconciler<Workload> {
  static final String BY_CHECK = "admission-check";
  private final ProvisioningCheck check;
  private InformerEventSource<AdmissionCheck, Workload> checks;
  private InformerEventSource<ProvisioningRequestConfig, Workload> configs;

  public ProvisioningRequestReconciler(ProvisioningCheck check) {
    this.check = check;
  }

  @Override
  public List<EventSource<?, Workload>> prepareEventSources(EventSourceContext<Workload> context) {
    IndexerResourceCache<Workload> workloads = context.getPrimaryCache();
    workloads.addIndexer(
        BY_CHECK,
        wl ->
            wl.getStatus() == null || wl.getStatus().admissionChecks == null
                ? List.of()
                : wl.getStatus().admissionChecks.stream()
                    .filter(c -> c != null && c.name != null)
                    .map(c -> c.name)
                    .toList());
    var requests =
        new InformerEventSource<>(
            InformerEventSourceConfiguration.from(ProvisioningRequest.class, Workload.class)
                .withItemStore(new LeanItemStore<>())
                .withInformerListLimit(Informers.LIST_LIMIT)
                .withSecondaryToPrimaryMapper(Mappers.fromOwnerReferences(Workload.class, false))
                .build(),
            context);
    checks =
        new InformerEventSource<>(
            InformerEventSourceConfiguration.from(AdmissionCheck.class, Workload.class)
                .withItemStore(new LeanItemStore<>())
                .withInformerListLimit(Informers.LIST_LIMIT)
                .withSecondaryToPrimaryMapper(ac -> listing(workloads, ac.getMetadata().getName()))
                .build(),
            context);
    configs =
        new InformerEventSource<>(
            InformerEventSourceConfiguration.from(ProvisioningRequestConfig.class, Workload.class)
                .withItemStore(new LeanItemStore<>())
                .withInformerListLimit(Informers.LIST_LIMIT)
                .withSecondaryToPrimaryMapper(
                    config ->
                        checks
                            .list(
                                ac ->
                                    CheckConfigs.configName(ac)
                                        .filter(config.getMetadata().getName()::equals)
                                        .isPresent())
                            .flatMap(ac -> listing(workloads, ac.getMetadata().getName()).stream())
                            .collect(Collectors.toSet()))
                .build(),
            context);
    return List.of(requests, checks, configs);
  }

  private static Set<ResourceID> listing(IndexerResourceCache<Workload> workloads, String check) {
    return workloads.byIndex(BY_CHECK, check).stream()
        .map(ResourceID::fromResource)
        .collect(Collectors.toSet());
  }

  @Override
  public UpdateControl<Workload> reconcile(Workload workload, Context<Workload> context) {
    check.reconcile(
        context.getClient(),
        workload,
        new ProvisioningCheck.View(
            name -> checks.get(new ResourceID(name)).orElse(null),
            name -> configs.get(new ResourceID(name)).orElse(null),
            List.copyOf(context.getSecondaryResources(ProvisioningRequest.class))));
    return UpdateControl.noUpdate();
  }
}
