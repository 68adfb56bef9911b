package dev.berth.engine.flavor;

import dev.berth.engine.model.NodeLabelMatcher;
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
    String key = NodeLabelMatcher.contradictedKey(podSet.nodeSelector(), labels, true);
    if (key != null) {
      return "flavor "
          + flavor.name()
          + " has node label "
          + key
          + "="
          + labels.get(key)
          + ", nodeSelector wants "
          + podSet.nodeSelector().get(key);
    }
    if (!podSet.requiredNodeAffinity().isEmpty()
        && !NodeLabelMatcher.anyTermMatches(podSet.requiredNodeAffinity(), labels, true)) {
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

  private static boolean tolerated(Taint taint, java.util.List<Toleration> tolerations) {
    for (Toleration t : tolerations) {
      if (t.tolerates(taint)) {
        return true;
      }
    }
    return false;
  }
}
