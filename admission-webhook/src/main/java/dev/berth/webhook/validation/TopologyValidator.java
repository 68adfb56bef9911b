package dev.berth.webhook.validation;

import dev.berth.api.v1beta1.Topology;
import dev.berth.api.v1beta1.TopologySpec;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/** A Topology: 1..16 unique node-label levels, outermost first, hostname only last. */
public final class TopologyValidator {
  static final String HOSTNAME = "kubernetes.io/hostname";
  static final int MAX_LEVELS = 16;

  private TopologyValidator() {}

  public static List<FieldError> validate(Topology topology) {
    Errors errors = new Errors();
    TopologySpec spec = topology.getSpec();
    FieldPath lp = FieldPath.root("spec").child("levels");
    if (spec == null || spec.levels == null || spec.levels.isEmpty()) {
      errors.add(FieldError.required(lp, "a topology has at least one level"));
      return errors.toList();
    }
    if (spec.levels.size() > MAX_LEVELS) {
      errors.add(FieldError.tooMany(lp, spec.levels.size(), MAX_LEVELS));
    }
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < spec.levels.size(); i++) {
      TopologySpec.TopologyLevel level = spec.levels.get(i);
      FieldPath np = lp.index(i).child("nodeLabel");
      if (level == null || level.nodeLabel == null || level.nodeLabel.isEmpty()) {
        errors.add(FieldError.required(np, "a level's node label is required"));
        continue;
      }
      errors.labelKey(np, level.nodeLabel);
      if (!seen.add(level.nodeLabel)) {
        errors.add(FieldError.duplicate(np, level.nodeLabel));
      }
      if (level.nodeLabel.equals(HOSTNAME) && i != spec.levels.size() - 1) {
        errors.add(
            FieldError.invalid(
                np, level.nodeLabel, "kubernetes.io/hostname may only be the last level"));
      }
    }
    return errors.toList();
  }

  /** Levels are fixed: flavors and admitted placements refer to them by position. */
  public static List<FieldError> validateUpdate(Topology old, Topology topology) {
    Errors errors = new Errors();
    errors.addAll(validate(topology));
    if (!Objects.equals(levels(old), levels(topology))) {
      errors.add(
          FieldError.invalid(
              FieldPath.root("spec").child("levels"),
              levels(topology),
              "field is immutable: levels cannot change once the topology is created"));
    }
    return errors.toList();
  }

  private static List<String> levels(Topology t) {
    if (t.getSpec() == null || t.getSpec().levels == null) {
      return List.of();
    }
    return t.getSpec().levels.stream().map(l -> l == null ? null : l.nodeLabel).toList();
  }
}
