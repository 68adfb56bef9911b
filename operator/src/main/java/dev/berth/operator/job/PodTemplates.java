package dev.berth.operator.job;

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

  /** Adds the flavors' node labels to the nodeSelector and their tolerations. */
  public static void inject(PodTemplateSpec template, Collection<String> flavorNames, Integration.FlavorLookup flavors) {
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

  /** Puts back the nodeSelector and tolerations of the original template. */
  public static void restore(PodTemplateSpec template, PodTemplateSpec original) {
    if (original == null || original.getSpec() == null) {
      return;
    }
    template.getSpec().setNodeSelector(original.getSpec().getNodeSelector());
    template.getSpec().setTolerations(original.getSpec().getTolerations());
  }
}
