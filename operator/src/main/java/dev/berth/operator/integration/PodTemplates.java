package dev.berth.operator.integration;

import dev.berth.api.v1beta1.Berth;
import dev.berth.api.v1beta1.PodSetAssignment;
import dev.berth.api.v1beta1.Workload;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.Toleration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The scheduling fields of a pod template that admission changes and eviction restores. */
public final class PodTemplates {
  private PodTemplates() {}

  /**
   * Starts a podSet's template under its assignment: the flavors' node labels join the nodeSelector
   * and their tolerations are added. A topology-placed podSet's pods are labelled with the podSet
   * and Workload, so that the pod webhook gates them and the operator ungates each into its domain.
   */
  public static void inject(
      PodTemplateSpec template,
      PodSetAssignment assignment,
      String workloadUid,
      Integration.FlavorLookup flavors) {
    List<String> flavorNames =
        assignment.flavors == null
            ? List.of()
            : assignment.flavors.values().stream().distinct().toList();
    inject(template, flavorNames, flavors);
    if (assignment.topologyAssignment != null) {
      ObjectMeta meta = template.getMetadata() == null ? new ObjectMeta() : template.getMetadata();
      template.setMetadata(meta);
      Map<String, String> labels =
          new LinkedHashMap<>(meta.getLabels() == null ? Map.of() : meta.getLabels());
      labels.put(Berth.PODSET_LABEL, assignment.name);
      labels.put(Berth.WORKLOAD_LABEL, workloadUid);
      meta.setLabels(labels);
    }
  }

  /** Adds the flavors' node labels to the nodeSelector and their tolerations. */
  static void inject(
      PodTemplateSpec template, Collection<String> flavorNames, Integration.FlavorLookup flavors) {
    var spec = template.getSpec();
    Map<String, String> nodeSelector =
        new LinkedHashMap<>(spec.getNodeSelector() == null ? Map.of() : spec.getNodeSelector());
    List<Toleration> tolerations =
        new ArrayList<>(spec.getTolerations() == null ? List.of() : spec.getTolerations());
    for (String flavor : flavorNames) {
      nodeSelector.putAll(flavors.nodeLabels(flavor));
      for (Toleration toleration : flavors.tolerations(flavor)) {
        if (!tolerations.contains(toleration)) {
          tolerations.add(toleration);
        }
      }
    }
    spec.setNodeSelector(nodeSelector.isEmpty() ? null : nodeSelector);
    spec.setTolerations(tolerations.isEmpty() ? null : tolerations);
  }

  /**
   * Adds what the workload's admission checks asked for this podSet in their podSetUpdates (the
   * provisioning check: the annotations that make the pods use the capacity it booked).
   */
  public static void applyCheckUpdates(PodTemplateSpec template, Workload workload, String podSet) {
    if (workload.getStatus() == null || workload.getStatus().admissionChecks == null) {
      return;
    }
    for (var check : workload.getStatus().admissionChecks) {
      if (check == null || check.podSetUpdates == null) {
        continue;
      }
      for (var update : check.podSetUpdates) {
        if (update != null
            && podSet.equals(update.name)
            && update.annotations != null
            && !update.annotations.isEmpty()) {
          ObjectMeta meta =
              template.getMetadata() == null ? new ObjectMeta() : template.getMetadata();
          template.setMetadata(meta);
          Map<String, String> annotations =
              new LinkedHashMap<>(meta.getAnnotations() == null ? Map.of() : meta.getAnnotations());
          annotations.putAll(update.annotations);
          meta.setAnnotations(annotations);
        }
      }
    }
  }

  /**
   * Puts back the nodeSelector, tolerations and annotations of the original template; drops
   * topology labels.
   */
  public static void restore(PodTemplateSpec template, PodTemplateSpec original) {
    if (template.getMetadata() != null && template.getMetadata().getLabels() != null) {
      Map<String, String> labels = new LinkedHashMap<>(template.getMetadata().getLabels());
      labels.remove(Berth.PODSET_LABEL);
      labels.remove(Berth.WORKLOAD_LABEL);
      template.getMetadata().setLabels(labels.isEmpty() ? null : labels);
    }
    if (original == null || original.getSpec() == null) {
      return;
    }
    if (template.getMetadata() != null) {
      // The annotations admission checks added (podSetUpdates) named this admission's requests.
      Map<String, String> annotations =
          original.getMetadata() == null ? null : original.getMetadata().getAnnotations();
      template
          .getMetadata()
          .setAnnotations(
              annotations == null || annotations.isEmpty()
                  ? null
                  : new LinkedHashMap<>(annotations));
    }
    template.getSpec().setNodeSelector(original.getSpec().getNodeSelector());
    template.getSpec().setTolerations(original.getSpec().getTolerations());
  }
}
