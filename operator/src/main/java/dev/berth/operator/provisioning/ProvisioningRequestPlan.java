package dev.berth.operator.provisioning;

import dev.berth.api.v1beta1.Berth;
import dev.berth.api.v1beta1.PodSet;
import dev.berth.api.v1beta1.PodSetAssignment;
import dev.berth.api.v1beta1.ProvisioningRequestConfigSpec;
import dev.berth.api.v1beta1.Workload;
import dev.berth.operator.admission.PodRequests;
import dev.berth.operator.integration.Integration;
import dev.berth.operator.integration.PodTemplates;
import dev.berth.operator.kube.Copies;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.PodTemplate;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The ProvisioningRequest (and its PodTemplates) that one attempt of a check asks the autoscaler
 * for: a podSet for each podSet of the workload that requests a managed resource, with the admitted
 * count and the pod template as it will start (the assigned flavors' node labels and tolerations
 * added, so the autoscaler scales the node group the pods will land on). Everything is owned by the
 * Workload, so the garbage collector removes what the check did not. Pure.
 */
public record ProvisioningRequestPlan(
    ProvisioningRequest request, List<PodTemplate> templates, List<String> podSets) {
  /** Annotation on what the check creates: the AdmissionCheck it was created for. */
  public static final String CHECK_ANNOTATION = Berth.GROUP + "/admission-check";

  /** The plan, or null when no podSet requests a managed resource (nothing to provision). */
  public static ProvisioningRequestPlan of(
      Workload wl,
      String check,
      int attempt,
      ProvisioningRequestConfigSpec config,
      Integration.FlavorLookup flavors) {
    String name = ProvisioningRequestNames.request(wl.getMetadata().getName(), check, attempt);
    List<PodTemplate> templates = new ArrayList<>();
    List<ProvisioningRequest.PodSet> podSets = new ArrayList<>();
    List<String> names = new ArrayList<>();
    for (PodSet ps : wl.getSpec().podSets) {
      if (!requestsManaged(ps, config.managedResources)) {
        continue;
      }
      PodSetAssignment assignment = assignment(wl, ps.name);
      PodTemplateSpec spec = Copies.deep(ps.template);
      if (assignment != null) {
        PodTemplates.inject(spec, assignment, wl.getMetadata().getUid(), flavors);
      }
      PodTemplate template = new PodTemplate();
      template.setMetadata(meta(ProvisioningRequestNames.podTemplate(name, ps.name), wl, check));
      template.setTemplate(spec);
      templates.add(template);
      int count = assignment != null && assignment.count != null ? assignment.count : ps.count;
      podSets.add(new ProvisioningRequest.PodSet(count, template.getMetadata().getName()));
      names.add(ps.name);
    }
    if (podSets.isEmpty()) {
      return null;
    }
    ProvisioningRequest pr = new ProvisioningRequest();
    pr.setMetadata(meta(name, wl, check));
    ProvisioningRequest.Spec spec = new ProvisioningRequest.Spec();
    spec.provisioningClassName = config.provisioningClassName;
    spec.parameters =
        config.parameters == null || config.parameters.isEmpty()
            ? null
            : new LinkedHashMap<>(config.parameters);
    spec.podSets = podSets;
    pr.setSpec(spec);
    return new ProvisioningRequestPlan(pr, templates, names);
  }

  /** Whether the podSet's pods request one of the managed resources (all, when none listed). */
  static boolean requestsManaged(PodSet ps, List<String> managed) {
    if (managed == null || managed.isEmpty()) {
      return true;
    }
    Map<String, Quantity> requests = PodRequests.of(ps.template.getSpec());
    return managed.stream()
        .anyMatch(
            r -> requests.containsKey(r) && requests.get(r).getNumericalAmount().signum() > 0);
  }

  private static PodSetAssignment assignment(Workload wl, String podSet) {
    if (wl.getStatus() == null
        || wl.getStatus().admission == null
        || wl.getStatus().admission.podSetAssignments == null) {
      return null;
    }
    return wl.getStatus().admission.podSetAssignments.stream()
        .filter(a -> podSet.equals(a.name))
        .findFirst()
        .orElse(null);
  }

  private static ObjectMeta meta(String name, Workload wl, String check) {
    ObjectMeta meta = new ObjectMeta();
    meta.setName(name);
    meta.setNamespace(wl.getMetadata().getNamespace());
    meta.setAnnotations(new LinkedHashMap<>(Map.of(CHECK_ANNOTATION, check)));
    meta.setOwnerReferences(List.of(owner(wl)));
    return meta;
  }

  static OwnerReference owner(Workload wl) {
    return new OwnerReferenceBuilder()
        .withApiVersion(Berth.API_VERSION)
        .withKind("Workload")
        .withName(wl.getMetadata().getName())
        .withUid(wl.getMetadata().getUid())
        .withController(true)
        .withBlockOwnerDeletion(true)
        .build();
  }
}
