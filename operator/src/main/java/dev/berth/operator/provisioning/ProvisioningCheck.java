package dev.berth.operator.provisioning;

import dev.berth.api.v1beta1.AdmissionCheck;
import dev.berth.api.v1beta1.ProvisioningRequestConfig;
import dev.berth.api.v1beta1.Workload;
import dev.berth.api.v1beta1.WorkloadStatus.AdmissionCheckState;
import dev.berth.api.v1beta1.WorkloadStatus.PodSetUpdate;
import dev.berth.engine.checks.CheckState;
import dev.berth.engine.checks.ProvisioningOutcome;
import dev.berth.engine.checks.ProvisioningOutcome.RequestCondition;
import dev.berth.operator.admission.StatusConditions;
import dev.berth.operator.events.EventRecorder;
import dev.berth.operator.integration.Integration;
import dev.berth.operator.kube.ApiErrors;
import dev.berth.operator.kube.Copies;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PodTemplate;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;

/**
 * The built-in berth.dev/provisioning-request check for one Workload: while it holds quota, one
 * ProvisioningRequest per check and reservation (named by the attempt, requeueState.count + 1), its
 * state mapped from the autoscaler's conditions ({@link ProvisioningOutcome}); requests of earlier
 * attempts, and all of them once the Workload has no quota or finished, deleted.
 */
public final class ProvisioningCheck {
  private final EventRecorder events;
  private final Integration.FlavorLookup flavors;
  private final Clock clock;

  public ProvisioningCheck(EventRecorder events, Integration.FlavorLookup flavors, Clock clock) {
    this.events = events;
    this.flavors = flavors;
    this.clock = clock;
  }

  /** What the reconcile sees besides the Workload: the checks, configs and its requests. */
  public record View(
      Function<String, AdmissionCheck> checks,
      Function<String, ProvisioningRequestConfig> configs,
      List<ProvisioningRequest> owned) {}

  public void reconcile(KubernetesClient client, Workload wl, View view) {
    Set<String> keep = new HashSet<>();
    if (live(wl)) {
      Workload copy = Copies.deep(wl);
      boolean changed = false;
      for (AdmissionCheckState entry : copy.getStatus().admissionChecks) {
        AdmissionCheck ac = entry == null ? null : view.checks().apply(entry.name);
        if (CheckConfigs.ours(ac)) {
          changed |= step(client, copy, entry, ac, view, keep);
        }
      }
      if (changed) {
        write(client, copy);
      }
    }
    for (ProvisioningRequest pr : view.owned()) {
      if (!keep.contains(pr.getMetadata().getName())) {
        delete(client, pr);
      }
    }
  }

  /** Quota reserved, not finished, not being evicted, active. */
  static boolean live(Workload wl) {
    return wl.getStatus() != null
        && wl.getStatus().admissionChecks != null
        && StatusConditions.hasQuotaReserved(wl)
        && !StatusConditions.isFinished(wl)
        && !StatusConditions.isTrue(wl, StatusConditions.EVICTED)
        && !Boolean.FALSE.equals(wl.getSpec().active);
  }

  /** One check of the workload; true when its entry changed. */
  private boolean step(
      KubernetesClient client,
      Workload wl,
      AdmissionCheckState entry,
      AdmissionCheck ac,
      View view,
      Set<String> keep) {
    CheckConfigs.Resolution r = CheckConfigs.resolve(ac, view.configs(), true);
    if (!r.ok()) {
      return set(wl, entry, CheckState.Pending, r.problem(), null);
    }
    int retries = retries(wl);
    String name =
        ProvisioningRequestNames.request(wl.getMetadata().getName(), entry.name, retries + 1);
    keep.add(name);
    CheckState current = CheckState.of(entry.state);
    if (current == CheckState.Retry || current == CheckState.Rejected) {
      return false; // decided; the admission loop evicts or deactivates, then the checks reset
    }
    ProvisioningRequest pr =
        view.owned().stream()
            .filter(p -> p.getMetadata().getName().equals(name))
            .findFirst()
            .orElse(null);
    if (pr == null) {
      if (current == CheckState.Ready) {
        return false; // Ready without a request: none was needed, or it is gone after use
      }
      ProvisioningRequestPlan plan =
          ProvisioningRequestPlan.of(wl, entry.name, retries + 1, r.config(), flavors);
      if (plan == null) {
        return set(
            wl,
            entry,
            CheckState.Ready,
            "no podSet requests a managed resource "
                + r.config().managedResources
                + ": nothing to provision",
            null);
      }
      create(client, plan);
      events.normal(
          wl,
          "ProvisioningRequestCreated",
          "Created ProvisioningRequest "
              + name
              + " (class "
              + r.config().provisioningClassName
              + ") for AdmissionCheck "
              + entry.name);
      return set(
          wl,
          entry,
          CheckState.Pending,
          "ProvisioningRequest " + name + " created, waiting for the autoscaler",
          null);
    }
    ProvisioningOutcome.Decision d =
        ProvisioningOutcome.decide(
            name,
            conditions(pr),
            StatusConditions.isTrue(wl, StatusConditions.ADMITTED),
            retries,
            r.limitCount());
    List<PodSetUpdate> updates =
        d.state() == CheckState.Ready
            ? podSetUpdates(pr, wl, r.config().provisioningClassName)
            : null;
    boolean changed = set(wl, entry, d.state(), d.message(), updates);
    if (changed && d.state() != current) {
      if (d.state() == CheckState.Ready) {
        events.normal(wl, "Provisioned", d.message());
      } else if (d.state() != CheckState.Pending) {
        events.warning(wl, "Provisioning" + d.state(), d.message());
      }
    }
    return changed;
  }

  static int retries(Workload wl) {
    var rs = wl.getStatus().requeueState;
    return rs == null || rs.count == null ? 0 : rs.count;
  }

  private static List<RequestCondition> conditions(ProvisioningRequest pr) {
    if (pr.getStatus() == null || pr.getStatus().conditions == null) {
      return List.of();
    }
    return pr.getStatus().conditions.stream()
        .map(c -> new RequestCondition(c.getType(), c.getStatus(), c.getReason(), c.getMessage()))
        .toList();
  }

  /** The annotations that make each provisioned podSet's pods use the booked capacity. */
  private static List<PodSetUpdate> podSetUpdates(
      ProvisioningRequest pr, Workload wl, String className) {
    List<PodSetUpdate> updates = new ArrayList<>();
    for (var ps : wl.getSpec().podSets) {
      String template = ProvisioningRequestNames.podTemplate(pr.getMetadata().getName(), ps.name);
      boolean provisioned =
          pr.getSpec() != null
              && pr.getSpec().podSets != null
              && pr.getSpec().podSets.stream()
                  .anyMatch(
                      p -> p.podTemplateRef != null && template.equals(p.podTemplateRef.name));
      if (provisioned) {
        Map<String, String> annotations = new LinkedHashMap<>();
        annotations.put(ProvisioningRequest.CONSUME_ANNOTATION, pr.getMetadata().getName());
        annotations.put(ProvisioningRequest.CLASS_ANNOTATION, className);
        updates.add(new PodSetUpdate(ps.name, annotations));
      }
    }
    return updates;
  }

  /** Sets the entry; true when anything of it changed. */
  private boolean set(
      Workload wl,
      AdmissionCheckState entry,
      CheckState state,
      String message,
      List<PodSetUpdate> updates) {
    boolean changed =
        !state.name().equals(entry.state)
            || !Objects.equals(message, entry.message)
            || !Serialization.asJson(updates).equals(Serialization.asJson(entry.podSetUpdates));
    if (!changed) {
      return false;
    }
    if (!state.name().equals(entry.state)) {
      entry.lastTransitionTime = clock.instant().toString();
    }
    entry.state = state.name();
    entry.message = message;
    entry.podSetUpdates = updates;
    return true;
  }

  private static void create(KubernetesClient client, ProvisioningRequestPlan plan) {
    for (PodTemplate template : plan.templates()) {
      createIfAbsent(client, template);
    }
    createIfAbsent(client, plan.request());
  }

  /** A create repeated after a lost reply or a crash finds the object (the attempt's name). */
  private static void createIfAbsent(KubernetesClient client, HasMetadata object) {
    try {
      client.resource(object).create();
    } catch (KubernetesClientException e) {
      if (!ApiErrors.conflict(e)) {
        throw e;
      }
    }
  }

  private static void write(KubernetesClient client, Workload copy) {
    try {
      client.resource(copy).updateStatus();
    } catch (KubernetesClientException e) {
      // 409: a newer version is on its way and is reconciled when it comes; 404: it is gone.
      if (!ApiErrors.conflictOrGone(e)) {
        throw e;
      }
    }
  }

  /** The request and the PodTemplates it names (owned by the Workload, made for it). */
  private static void delete(KubernetesClient client, ProvisioningRequest pr) {
    String ns = pr.getMetadata().getNamespace();
    client.resource(pr).delete();
    if (pr.getSpec() != null && pr.getSpec().podSets != null) {
      for (var ps : pr.getSpec().podSets) {
        if (ps.podTemplateRef != null && ps.podTemplateRef.name != null) {
          client.v1().podTemplates().inNamespace(ns).withName(ps.podTemplateRef.name).delete();
        }
      }
    }
  }
}
