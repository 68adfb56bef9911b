package dev.berth.engine.flavor;

import dev.berth.engine.model.LabelSelectorRequirement;
import dev.berth.engine.model.NodeSelectorTerm;
import dev.berth.engine.model.PodSet;
import dev.berth.engine.model.ResourceFlavor;
import dev.berth.engine.model.Taint;
import dev.berth.engine.model.Toleration;
import java.util.Map;

/**
 * Whether a podSet may use a flavor's nodes: its nodeSelector and required node affinity must not
 * contradict the flavor's labels (only keys the flavor defines are compared), and every NoSchedule
 * or NoExecute taint must be tolerated by the pods or by the flavor itself. A podSet that asks for
 * a topology may use only flavors that name one.
 */
public final class FlavorMatcher {
  private FlavorMatcher() {}

  /** Null when the podSet may use the flavor, else why not. */
  public static String mismatch(PodSet podSet, ResourceFlavor flavor) {
    if (podSet.topologyRequest() != null && flavor.topologyName() == null) {
      // Only a flavor whose nodes form a Topology can honour a placement request.
      return "flavor "
          + flavor.name()
          + " has no topologyName, podSet "
          + podSet.name()
          + " asks for a topology";
    }
    Map<String, String> labels = flavor.nodeLabels();
    for (Map.Entry<String, String> sel : podSet.nodeSelector().entrySet()) {
      String have = labels.get(sel.getKey());
      if (have != null && !have.equals(sel.getValue())) {
        return "flavor "
            + flavor.name()
            + " has node label "
            + sel.getKey()
            + "="
            + have
            + ", nodeSelector wants "
            + sel.getValue();
      }
    }
    if (!podSet.requiredNodeAffinity().isEmpty() && !anyTermMatches(podSet, labels)) {
      return "flavor "
          + flavor.name()
          + " node labels "
          + new java.util.TreeMap<>(labels)
          + " match no required node affinity term";
    }
    for (Taint taint : flavor.nodeTaints()) {
      if (taint.effect().repels()
          && !tolerated(taint, podSet.tolerations())
          && !tolerated(taint, flavor.tolerations())) {
        return "flavor " + flavor.name() + " has untolerated taint " + taint;
      }
    }
    return null;
  }

  private static boolean anyTermMatches(PodSet podSet, Map<String, String> labels) {
    for (NodeSelectorTerm term : podSet.requiredNodeAffinity()) {
      boolean ok = true;
      for (LabelSelectorRequirement req : term.matchExpressions()) {
        // A key the flavor does not pin may be satisfied by the scheduler on any of its nodes.
        if (labels.containsKey(req.key()) && !req.matchesValue(labels.get(req.key()))) {
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

  private static boolean tolerated(Taint taint, java.util.List<Toleration> tolerations) {
    for (Toleration t : tolerations) {
      if (t.tolerates(taint)) {
        return true;
      }
    }
    return false;
  }
}
