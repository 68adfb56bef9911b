package dev.berth.operator.reconciler;

import dev.berth.api.v1beta1.ResourceFlavor;
import dev.berth.operator.admission.ClusterView;
import dev.berth.operator.integration.Integration;
import io.fabric8.kubernetes.api.model.Toleration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Node labels and tolerations of flavors, for injecting into admitted Jobs: read from the flavors
 * the admission loop decided with, so a Job starts on exactly what was admitted.
 */
public final class ClusterStateFlavorLookup implements Integration.FlavorLookup {
  private final ClusterView state;

  public ClusterStateFlavorLookup(ClusterView state) {
    this.state = state;
  }

  private Optional<ResourceFlavor> get(String flavor) {
    return state.latestFlavor(flavor).filter(rf -> rf.getSpec() != null);
  }

  @Override
  public Map<String, String> nodeLabels(String flavor) {
    return get(flavor).map(rf -> rf.getSpec().nodeLabels).orElse(null) == null
        ? Map.of()
        : get(flavor).get().getSpec().nodeLabels;
  }

  @Override
  public List<Toleration> tolerations(String flavor) {
    return get(flavor).map(rf -> rf.getSpec().tolerations).orElse(null) == null
        ? List.of()
        : get(flavor).get().getSpec().tolerations;
  }
}
