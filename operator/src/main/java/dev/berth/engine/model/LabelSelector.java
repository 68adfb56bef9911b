package dev.berth.engine.model;

import java.util.List;
import java.util.Map;

/** A Kubernetes label selector (matchLabels AND matchExpressions); empty matches everything. */
public record LabelSelector(
    Map<String, String> matchLabels, List<LabelSelectorRequirement> matchExpressions) {
  public static final LabelSelector ALL = new LabelSelector(Map.of(), List.of());

  public LabelSelector {
    matchLabels = matchLabels == null ? Map.of() : Map.copyOf(matchLabels);
    matchExpressions = matchExpressions == null ? List.of() : List.copyOf(matchExpressions);
  }

  public boolean matches(Map<String, String> labels) {
    if (!NodeLabelMatcher.carriesAll(labels, matchLabels)) {
      return false;
    }
    for (LabelSelectorRequirement r : matchExpressions) {
      if (!r.matches(labels)) {
        return false;
      }
    }
    return true;
  }
}
