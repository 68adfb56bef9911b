package dev.berth.operator.admission;

import dev.berth.api.v1beta1.PodSetAssignment;
import dev.berth.engine.model.Taint;
import dev.berth.engine.model.TaintEffect;
import dev.berth.engine.quota.Quantity;
import dev.berth.engine.topology.Topology;
import dev.berth.engine.topology.TopologyAssignment;
import dev.berth.engine.topology.TopologyNode;
import dev.berth.engine.topology.TopologyRequest;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** Topologies, Nodes, topology requests and assignments between the API and the engine. */
public final class TopologyTranslator {
  private TopologyTranslator() {}

  public static Topology topology(dev.berth.api.v1beta1.Topology topology) {
    List<String> levels = new ArrayList<>();
    if (topology.getSpec() != null && topology.getSpec().levels != null) {
      topology.getSpec().levels.forEach(l -> levels.add(l.nodeLabel));
    }
    return Topology.of(topology.getMetadata().getName(), levels.toArray(String[]::new));
  }

  /** What placement needs of a Node; heartbeats and images do not change it. */
  public static TopologyNode node(Node node) {
    TopologyNode.Builder b = TopologyNode.named(node.getMetadata().getName());
    if (node.getMetadata().getLabels() != null) {
      node.getMetadata().getLabels().forEach(b::label);
    }
    var status = node.getStatus();
    if (status != null && status.getAllocatable() != null) {
      status.getAllocatable().forEach((r, q) -> b.allocatable(r, Quantity.parse(r, q.toString())));
    }
    boolean ready =
        status != null
            && status.getConditions() != null
            && status.getConditions().stream()
                .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
    b.ready(ready);
    var spec = node.getSpec();
    b.unschedulable(spec != null && Boolean.TRUE.equals(spec.getUnschedulable()));
    if (spec != null && spec.getTaints() != null) {
      for (var t : spec.getTaints()) {
        b.taint(new Taint(t.getKey(), t.getValue(), TaintEffect.valueOf(t.getEffect())));
      }
    }
    return b.build();
  }

  /**
   * A pod that takes node capacity outside any placement: bound to a node, not finished, and not
   * one of a topology-placed podSet (its placement already counts it). Null otherwise.
   */
  public static Map<String, Long> boundRequests(Pod pod) {
    if (pod.getSpec() == null || pod.getSpec().getNodeName() == null) {
      return null;
    }
    String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
    if ("Succeeded".equals(phase) || "Failed".equals(phase)) {
      return null;
    }
    var labels = pod.getMetadata().getLabels();
    if (labels != null && labels.containsKey(dev.berth.api.v1beta1.Berth.PODSET_LABEL)) {
      return null;
    }
    Map<String, Long> requests = new TreeMap<>();
    PodRequests.of(pod.getSpec())
        .forEach((r, q) -> requests.put(r, Quantity.parse(r, q.toString())));
    return requests;
  }

  /** The engine's request; slices without a mode spread over the whole topology. */
  public static TopologyRequest request(dev.berth.api.v1beta1.TopologyRequest in) {
    if (in == null) {
      return null;
    }
    TopologyRequest request;
    if (in.required != null) {
      request = TopologyRequest.required(in.required);
    } else if (in.preferred != null) {
      request = TopologyRequest.preferred(in.preferred);
    } else if (Boolean.TRUE.equals(in.unconstrained) || in.podSetSliceSize != null) {
      request = TopologyRequest.unconstrained();
    } else {
      return null;
    }
    if (in.podSetSliceSize != null && in.podSetSliceRequiredTopology != null) {
      request = request.inSlices(in.podSetSliceSize, in.podSetSliceRequiredTopology);
    }
    if (in.podSetGroupName != null) {
      request = request.inGroup(in.podSetGroupName);
    }
    return request;
  }

  public static PodSetAssignment.TopologyAssignment toApi(TopologyAssignment in) {
    if (in == null) {
      return null;
    }
    PodSetAssignment.TopologyAssignment out = new PodSetAssignment.TopologyAssignment();
    out.levels = List.copyOf(in.levels());
    out.domains = new ArrayList<>();
    for (TopologyAssignment.Domain d : in.domains()) {
      PodSetAssignment.TopologyAssignment.Domain domain =
          new PodSetAssignment.TopologyAssignment.Domain();
      domain.values = List.copyOf(d.values());
      domain.count = d.count();
      out.domains.add(domain);
    }
    return out;
  }

  public static TopologyAssignment fromApi(PodSetAssignment.TopologyAssignment in) {
    if (in == null || in.levels == null || in.domains == null) {
      return null;
    }
    List<TopologyAssignment.Domain> domains = new ArrayList<>();
    for (var d : in.domains) {
      domains.add(new TopologyAssignment.Domain(d.values, d.count == null ? 0 : d.count));
    }
    return new TopologyAssignment(in.levels, domains);
  }

  /**
   * Where a podSet went, for Events: the narrowest domain holding all its pods and how many leaf
   * domains it spans, e.g. "podSet main: 8 pods in topology.berth.dev/rack b1-r2 over 8
   * kubernetes.io/hostname domains".
   */
  public static String summary(String podSet, TopologyAssignment placed) {
    List<String> levels = placed.levels();
    int common = -1;
    for (int l = 0; l < levels.size(); l++) {
      String value = placed.domains().get(0).values().get(l);
      final int level = l;
      if (placed.domains().stream().allMatch(d -> d.values().get(level).equals(value))) {
        common = l;
      } else {
        break;
      }
    }
    String where =
        common < 0
            ? "across " + levels.get(0) + " domains"
            : "in " + levels.get(common) + " " + placed.domains().get(0).values().get(common);
    return "podSet "
        + podSet
        + ": "
        + placed.podCount()
        + " pods "
        + where
        + " over "
        + placed.domains().size()
        + " "
        + levels.get(levels.size() - 1)
        + " domain(s)";
  }
}
