package dev.berth.engine.checks;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;

/** Which of a ClusterQueue's checks a workload must pass, given the flavors it was assigned. */
public final class ApplicableChecks {
  private ApplicableChecks() {}

  /** The names of the rules that apply, in the ClusterQueue's order, each once. */
  public static List<String> of(List<CheckRule> rules, Collection<String> assignedFlavors) {
    LinkedHashSet<String> names = new LinkedHashSet<>();
    for (CheckRule rule : rules) {
      if (rule.appliesTo(assignedFlavors)) {
        names.add(rule.name());
      }
    }
    return new ArrayList<>(names);
  }
}
