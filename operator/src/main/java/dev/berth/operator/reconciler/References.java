package dev.berth.operator.reconciler;

import dev.berth.api.v1beta1.ClusterQueue;
import java.util.LinkedHashSet;
import java.util.Set;

/** The names one object refers to. */
final class References {
  private References() {}

  static Set<String> flavors(ClusterQueue cq) {
    Set<String> names = new LinkedHashSet<>();
    if (cq.getSpec() != null && cq.getSpec().resourceGroups != null) {
      cq.getSpec().resourceGroups.forEach(g -> g.flavors.forEach(f -> names.add(f.name)));
    }
    return names;
  }
}
