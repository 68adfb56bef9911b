package dev.berth.engine.model;

import java.util.List;

/** One term of a pod's required node affinity; terms are ORed, expressions inside a term ANDed. */
public record NodeSelectorTerm(List<LabelSelectorRequirement> matchExpressions) {
  public NodeSelectorTerm {
    matchExpressions = matchExpressions == null ? List.of() : List.copyOf(matchExpressions);
  }
}
