package dev.berth.engine.model;

import java.util.List;
import java.util.Map;

/**
 * The engine's one matcher of node labels, as kube-scheduler applies a pod's nodeSelector and
 * required node affinity (nodeSelector AND at least one term; expressions of a term ANDed), and as
 * a flavor's nodeLabels or a selector's matchLabels are carried. Flavor assignment and topology
 * placement must agree on what a podSet may run on, so both ask here.
 *
 * <p>With {@code pinnedOnly}, the labels are those a flavor pins on all of its nodes: a key they do
 * not set may still be satisfied by some of its nodes, so only keys they set can contradict.
 */
public final class NodeLabelMatcher {
  private NodeLabelMatcher() {}

  /** Whether every one of {@code wanted} is on {@code labels} with the same value. */
  public static boolean carriesAll(Map<String, String> labels, Map<String, String> wanted) {
    return contradictedKey(wanted, labels, false) == null;
  }

  /** Whether a node with these labels satisfies the podSet's nodeSelector and node affinity. */
  public static boolean selects(PodSet podSet, Map<String, String> labels) {
    return contradictedKey(podSet.nodeSelector(), labels, false) == null
        && (podSet.requiredNodeAffinity().isEmpty()
            || anyTermMatches(podSet.requiredNodeAffinity(), labels, false));
  }

  /** The first key of {@code nodeSelector} the labels contradict, or null when none does. */
  public static String contradictedKey(
      Map<String, String> nodeSelector, Map<String, String> labels, boolean pinnedOnly) {
    for (Map.Entry<String, String> sel : nodeSelector.entrySet()) {
      String have = labels.get(sel.getKey());
      if (have == null ? !pinnedOnly : !have.equals(sel.getValue())) {
        return sel.getKey();
      }
    }
    return null;
  }

  /** Whether at least one required node-affinity term holds on the labels. */
  public static boolean anyTermMatches(
      List<NodeSelectorTerm> terms, Map<String, String> labels, boolean pinnedOnly) {
    for (NodeSelectorTerm term : terms) {
      boolean ok = true;
      for (LabelSelectorRequirement req : term.matchExpressions()) {
        if ((!pinnedOnly || labels.containsKey(req.key())) && !req.matches(labels)) {
          ok = false;
          break;
        }
      }
      if (ok) {
        return true;
      }
    }
    return false;
  }
}
