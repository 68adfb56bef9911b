package dev.berth.engine.topology;

import dev.berth.engine.model.NodeLabelMatcher;
import dev.berth.engine.model.PodSet;
import dev.berth.engine.model.ResourceFlavor;
import dev.berth.engine.model.Taint;
import dev.berth.engine.model.Toleration;
import java.util.Collection;
import java.util.List;
import java.util.TreeMap;

/**
 * Whether the pods of an admitted podSet could run on some node of its flavor: a node carrying the
 * flavor's labels, selected by the pods' nodeSelector and required node affinity, whose every
 * NoSchedule or NoExecute taint the pods or the flavor tolerate. Quota says nothing about this: a
 * flavor whose nodes all carry a GPU taint admits CPU-only pods that then wait for ever, holding
 * quota. Only lasting facts count: readiness, cordons and the node lifecycle's own taints ({@code
 * node.kubernetes.io/...}) come and go, and do not make a node unreachable here.
 */
public final class NodeReach {
  private static final String LIFECYCLE_TAINTS = "node.kubernetes.io/";

  private NodeReach() {}

  /** Null when some node takes the pods, else why none does. */
  public static String unreachable(
      PodSet podSet, ResourceFlavor flavor, Collection<TopologyNode> nodes) {
    int withLabels = 0;
    String firstWhy = null;
    for (TopologyNode node : nodes) {
      if (!node.labels().entrySet().containsAll(flavor.nodeLabels().entrySet())) {
        continue;
      }
      withLabels++;
      String why = refusal(podSet, flavor, node);
      if (why == null) {
        return null;
      }
      if (firstWhy == null) {
        firstWhy = "node " + node.name() + " " + why;
      }
    }
    if (withLabels == 0) {
      return "podSet "
          + podSet.name()
          + ": no node has the labels of flavor "
          + flavor.name()
          + " "
          + new TreeMap<>(flavor.nodeLabels());
    }
    return "podSet "
        + podSet.name()
        + ": none of the "
        + withLabels
        + " node(s) of flavor "
        + flavor.name()
        + " takes its pods ("
        + firstWhy
        + ")";
  }

  private static String refusal(PodSet podSet, ResourceFlavor flavor, TopologyNode node) {
    if (!NodeLabelMatcher.selects(podSet, node.labels())) {
      return "does not match the pods' nodeSelector or required node affinity";
    }
    for (Taint taint : node.taints()) {
      if (taint.effect().repels()
          && !taint.key().startsWith(LIFECYCLE_TAINTS)
          && !tolerated(taint, podSet.tolerations())
          && !tolerated(taint, flavor.tolerations())) {
        return "has taint " + taint + ", which the pods do not tolerate";
      }
    }
    return null;
  }

  private static boolean tolerated(Taint taint, List<Toleration> tolerations) {
    for (Toleration t : tolerations) {
      if (t.tolerates(taint)) {
        return true;
      }
    }
    return false;
  }
}
