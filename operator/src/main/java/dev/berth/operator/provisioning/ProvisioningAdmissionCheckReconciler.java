package dev.berth.operator.provisioning;

import dev.berth.api.v1beta1.AdmissionCheck;
import dev.berth.api.v1beta1.AdmissionCheckStatus;
import dev.berth.api.v1beta1.Condition;
import dev.berth.api.v1beta1.ProvisioningRequestConfig;
import dev.berth.operator.admission.CheckBackoffs;
import dev.berth.operator.admission.StatusConditions;
import dev.berth.operator.informers.Informers;
import dev.berth.operator.kube.ApiErrors;
import dev.berth.operator.kube.Copies;
import dev.berth.operator.kube.LeanItemStore;
import dev.berth.operator.kube.ReconcileAll;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Marks the AdmissionChecks of the built-in berth.dev/provisioning-request controller Active when
 * the ProvisioningRequestConfig they name exists (and the ProvisioningRequest CRD is installed),
 * Active=False with the reason otherwise, and keeps each check's retry backoff where the admission
 * loop reads it.
 */
@ControllerConfiguration(
    name = "provisioning-admission-checks",
    informer = @Informer(informerListLimit = Informers.LIST_LIMIT, itemStore = LeanItemStore.class))
public final class ProvisioningAdmissionCheckReconciler implements Reconciler<AdmissionCheck> {
  static final String BY_CONFIG = "provisioning-config";
  private final CheckBackoffs backoffs;
  private volatile boolean requestCrdInstalled;
  private final Clock clock;
  private InformerEventSource<ProvisioningRequestConfig, AdmissionCheck> configs;

  /** Marks every check again once the ProvisioningRequest CRD is installed after start. */
  private final ReconcileAll<CustomResourceDefinition, AdmissionCheck> crdInstalled =
      new ReconcileAll<>(CustomResourceDefinition.class, "provisioning-request-crd");

  public ProvisioningAdmissionCheckReconciler(
      CheckBackoffs backoffs, boolean requestCrdInstalled, Clock clock) {
    this.backoffs = backoffs;
    this.requestCrdInstalled = requestCrdInstalled;
    this.clock = clock;
  }

  @Override
  public List<EventSource<?, AdmissionCheck>> prepareEventSources(
      EventSourceContext<AdmissionCheck> context) {
    context
        .getPrimaryCache()
        .addIndexer(BY_CONFIG, ac -> CheckConfigs.configName(ac).map(List::of).orElse(List.of()));
    var configuration =
        InformerEventSourceConfiguration.from(ProvisioningRequestConfig.class, AdmissionCheck.class)
            .withItemStore(new LeanItemStore<>())
            .withInformerListLimit(Informers.LIST_LIMIT)
            .withSecondaryToPrimaryMapper(
                config ->
                    context
                        .getPrimaryCache()
                        .byIndex(BY_CONFIG, config.getMetadata().getName())
                        .stream()
                        .map(ResourceID::fromResource)
                        .collect(Collectors.toSet()))
            .build();
    configs = new InformerEventSource<>(configuration, context);
    crdInstalled.of(context.getPrimaryCache());
    return List.of(configs, crdInstalled);
  }

  /**
   * The ProvisioningRequest CRD was installed after start and its controller runs now: every check
   * of this controller is marked again (Active where its config exists).
   */
  public void requestCrdInstalled() {
    requestCrdInstalled = true;
    crdInstalled.fire();
  }

  @Override
  public UpdateControl<AdmissionCheck> reconcile(
      AdmissionCheck ac, Context<AdmissionCheck> context) {
    String name = ac.getMetadata().getName();
    if (!CheckConfigs.ours(ac)) {
      backoffs.remove(name);
      return UpdateControl.noUpdate();
    }
    // From the informer's cache, not getSecondaryResources: a check created after its config
    // was never in the mapper's answer for that config.
    CheckConfigs.Resolution r =
        CheckConfigs.resolve(
            ac, n -> configs.get(new ResourceID(n)).orElse(null), requestCrdInstalled);
    if (r.ok()) {
      backoffs.set(name, r.backoff());
    } else {
      backoffs.remove(name);
    }
    String message =
        r.ok()
            ? ProvisioningRequestConfig.CONTROLLER_NAME
                + " asks the cluster"
                + " autoscaler for capacity (class "
                + r.config().provisioningClassName
                + ")"
            : r.problem();
    AdmissionCheck copy = Copies.deep(ac);
    if (copy.getStatus() == null) {
      copy.setStatus(new AdmissionCheckStatus());
    }
    List<Condition> conditions =
        copy.getStatus().conditions == null
            ? new ArrayList<>()
            : new ArrayList<>(copy.getStatus().conditions);
    copy.getStatus().conditions = conditions;
    if (!StatusConditions.set(
        conditions, "Active", r.ok(), r.ok() ? "Active" : "NotReady", message, clock.instant())) {
      return UpdateControl.noUpdate();
    }
    try {
      context.getClient().resource(copy).updateStatus();
    } catch (KubernetesClientException e) {
      if (!ApiErrors.conflictOrGone(e)) {
        throw e;
      }
      // 409: a newer version is on its way and is reconciled when it comes; 404: it is gone.
    }
    return UpdateControl.noUpdate();
  }
}
