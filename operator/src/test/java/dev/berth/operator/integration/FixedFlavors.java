package dev.berth.operator.integration;

import io.fabric8.kubernetes.api.model.Toleration;
import java.util.List;
import java.util.Map;

/**
 * A {@link Integration.FlavorLookup} with fixed answers, for the tests of what an integration
 * writes into a started Job: every flavor's node labels are one label whose value is the flavor's
 * name, and every flavor has the same tolerations. In production the lookup reads the
 * ResourceFlavors from the cluster state; these tests only check that its answers are applied.
 */
public record FixedFlavors(String labelKey, List<Toleration> tolerationsOfEach)
    implements Integration.FlavorLookup {
  /** No flavor has node labels or tolerations. */
  public static final FixedFlavors NONE = new FixedFlavors(null, List.of());

  /** Each flavor {@code f} has the node label {@code labelKey=f} and {@code tolerations}. */
  public static FixedFlavors labelled(String labelKey, Toleration... tolerations) {
    return new FixedFlavors(labelKey, List.of(tolerations));
  }

  @Override
  public Map<String, String> nodeLabels(String flavor) {
    return labelKey == null ? Map.of() : Map.of(labelKey, flavor);
  }

  @Override
  public List<Toleration> tolerations(String flavor) {
    return tolerationsOfEach;
  }
}
