package dev.berth.engine.topology;

import dev.berth.engine.PodSetAssignment;
import dev.berth.engine.model.Explanation;
import dev.berth.engine.model.NodeLabelMatcher;
import dev.berth.engine.model.PendingReason;
import dev.berth.engine.model.PodSet;
import dev.berth.engine.model.ResourceFlavor;
import dev.berth.engine.model.Taint;
import dev.berth.engine.model.Toleration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Node capacity of the topology-aware flavors: one {@link NodeInventory} per flavor whose Topology
 * is known, fed by Nodes, by pods bound to them, and by the placements of admitted topology-aware
 * podSets. A change of a node, Topology or flavor rebuilds the inventories on next use (nodes
 * change rarely; the operator passes only changes that matter, not heartbeats); pods and placements
 * change them in place.
 *
 * <p>An inventory is kept equal to a fresh build charged with the held placements, then the bound
 * pods in arrival order. A bound pod that names no sub-domain, on a node with several, is charged
 * first fit in order, which cannot be undone in place: its coming and going rebuilds instead.
 *
 * <p>Pods of a placed podSet must not be passed as bound pods: their capacity is taken by the
 * placement from admission until release.
 */
public final class TopologyState {
  /** The UID a trial placement is held under; no Kubernetes UID looks like it. */
  private static final String PROBE = "\u0000probe";

  private final TopologyPlacer placer = new TopologyPlacer();
  private final Map<String, Topology> topologies = new TreeMap<>();
  private final Map<String, TopologyNode> nodes = new TreeMap<>();

  /**
   * In arrival order: a pod without a sub-domain fills its node's sub-domains after those before
   * it.
   */
  private final Map<String, BoundPod> boundPods = new LinkedHashMap<>();

  /** Admitted workload UID to the placements it holds. */
  private final Map<String, List<Held>> placements = new HashMap<>();

  private Map<String, ResourceFlavor> flavors = Map.of();
  private Map<String, NodeInventory> inventories = new TreeMap<>();

  /** Flavors whose nodes cannot form their Topology's tree, and why. */
  private final Map<String, String> broken = new TreeMap<>();

  private boolean stale = true;

  private record BoundPod(String node, String subDomain, Map<String, Long> requests) {}

  /**
   * A placed podSet. Its flavor is looked up when it is charged, not when it is held: at restart a
   * workload may be recorded before its ResourceFlavor is known.
   */
  private record Held(
      Map<String, String> flavors, TopologyAssignment assignment, Map<String, Long> perPod) {}

  /**
   * The outcome of placing a workload: one assignment per podSet (null when quota alone decides).
   */
  public record Result(List<PodSetAssignment> podSets, Explanation refused) {}

  /**
   * Gives another engine's topology state the same topologies, nodes and bound pods (the start-time
   * replay's copy; placements come with its recorded admissions).
   */
  public void copyTo(TopologyState other) {
    topologies.values().forEach(other::upsertTopology);
    nodes.values().forEach(other::upsertNode);
    boundPods.forEach((uid, p) -> other.upsertBoundPod(uid, p.node(), p.subDomain(), p.requests()));
  }

  // ---------------------------------------------------------------- observations

  /** Returns true when the change can free capacity (waiting workloads should look again). */
  public boolean upsertTopology(Topology topology) {
    if (topology.equals(topologies.put(topology.name(), topology))) {
      return false;
    }
    stale = true;
    return true;
  }

  public void deleteTopology(String name) {
    if (topologies.remove(name) != null) {
      stale = true;
    }
  }

  public boolean upsertNode(TopologyNode node) {
    if (node.equals(nodes.put(node.name(), node))) {
      return false;
    }
    stale = true;
    return true;
  }

  /** Returns true when the deletion may have made a flavor usable again (duplicate hostnames). */
  public boolean deleteNode(String name) {
    if (nodes.remove(name) == null) {
      return false;
    }
    stale = true;
    return !broken.isEmpty();
  }

  /** The engine's flavors changed: inventories are rebuilt for the topology-aware ones. */
  public void flavorsChanged(Map<String, ResourceFlavor> current) {
    flavors = current;
    stale = true;
  }

  /** Returns true when the pod held capacity before and may hold less now. */
  public boolean upsertBoundPod(
      String uid, String node, String subDomain, Map<String, Long> requests) {
    BoundPod pod = new BoundPod(node, subDomain, Map.copyOf(requests));
    BoundPod old = boundPods.put(uid, pod);
    if (pod.equals(old)) {
      return false;
    }
    if (old != null) {
      charge(old, false);
    }
    charge(pod, true);
    return old != null;
  }

  /** Returns true when the pod held capacity, now free. */
  public boolean deleteBoundPod(String uid) {
    BoundPod old = boundPods.remove(uid);
    if (old == null) {
      return false;
    }
    charge(old, false);
    return true;
  }

  // ---------------------------------------------------------------- placement

  /**
   * Places every podSet that asks for a topology, one after another (each sees the capacity the
   * previous one took). On success the placements are held for {@code uid} until {@link #release};
   * on failure nothing is held and the explanation names the podSet, the flavor and the numbers.
   */
  public Result place(String uid, List<PodSet> specs, List<PodSetAssignment> podSets) {
    if (!asksForTopology(specs)) {
      return new Result(podSets, null);
    }
    ensure();
    List<PodSetAssignment> out = new ArrayList<>(podSets.size());
    List<Held> held = new ArrayList<>();
    Map<String, PodSetAssignment> groupPlaced = new HashMap<>();
    for (PodSetAssignment psa : podSets) {
      PodSet spec = spec(specs, psa.name());
      if (spec == null || spec.topologyRequest() == null || psa.count() == 0) {
        out.add(psa);
        continue;
      }
      PodSetAssignment fromGroup = groupPlaced.get(psa.name());
      if (fromGroup != null) {
        out.add(fromGroup);
        continue;
      }
      if (leadsRequiredGroup(spec, specs, podSets)) {
        String failed = placeGroup(spec, specs, podSets, held, groupPlaced);
        if (failed != null) {
          apply(held, false);
          return refused(failed);
        }
        out.add(groupPlaced.get(psa.name()));
        continue;
      }
      String flavor = topologyFlavor(psa.flavors());
      if (flavor == null) {
        apply(held, false);
        return refused(
            "podSet "
                + psa.name()
                + " asks for a topology, but its flavors "
                + new TreeMap<>(psa.flavors()).values()
                + " have no topologyName");
      }
      NodeInventory inv = inventories.get(flavor);
      if (inv == null) {
        apply(held, false);
        return refused(
            "podSet "
                + psa.name()
                + ": Topology "
                + flavors.get(flavor).topologyName()
                + " of flavor "
                + flavor
                + broken.getOrDefault(flavor, " does not exist"));
      }
      Placement p =
          placer.place(
              selectedNodes(flavor, spec, inv, held),
              psa.count(),
              spec.requests(),
              spec.topologyRequest());
      if (!p.isPlaced()) {
        apply(held, false);
        return refused("podSet " + psa.name() + " in flavor " + flavor + ": " + p.message());
      }
      Held h = new Held(psa.flavors(), p.assignment(), spec.requests());
      inv.addPlacement(h.assignment, h.perPod);
      held.add(h);
      out.add(psa.withTopology(p.assignment()));
    }
    if (!held.isEmpty()) {
      placements.put(uid, held);
    }
    return new Result(out, null);
  }

  /**
   * Whether the podSet is the first of a podSet group asking for a required level, with others in
   * the group to place beside it.
   */
  private static boolean leadsRequiredGroup(
      PodSet spec, List<PodSet> specs, List<PodSetAssignment> podSets) {
    TopologyRequest r = spec.topologyRequest();
    if (r.group() == null || r.mode() != TopologyRequest.Mode.REQUIRED) {
      return false;
    }
    List<PodSetAssignment> members = groupOf(r.group(), specs, podSets);
    return members.size() > 1 && members.get(0).name().equals(spec.name());
  }

  /** The podSets of a group that have pods to place, in the workload's order. */
  private static List<PodSetAssignment> groupOf(
      String group, List<PodSet> specs, List<PodSetAssignment> podSets) {
    List<PodSetAssignment> members = new ArrayList<>();
    for (PodSetAssignment psa : podSets) {
      PodSet spec = spec(specs, psa.name());
      if (spec != null
          && spec.topologyRequest() != null
          && group.equals(spec.topologyRequest().group())
          && psa.count() > 0) {
        members.add(psa);
      }
    }
    return members;
  }

  /**
   * Places a podSet group in one domain of its first podSet's required level: the first domain, in
   * the topology's order, that holds every podSet of the group, each placed as it asks inside it.
   * On success each placement is charged and held; else the message says why.
   */
  private String placeGroup(
      PodSet lead,
      List<PodSet> specs,
      List<PodSetAssignment> podSets,
      List<Held> held,
      Map<String, PodSetAssignment> placed) {
    String group = lead.topologyRequest().group();
    String level = lead.topologyRequest().level();
    List<PodSetAssignment> members = groupOf(group, specs, podSets);
    String flavor = topologyFlavor(members.get(0).flavors());
    for (PodSetAssignment m : members) {
      if (flavor == null || !flavor.equals(topologyFlavor(m.flavors()))) {
        return "podSet group " + group + ": its podSets got different flavors";
      }
    }
    NodeInventory inv = inventories.get(flavor);
    if (inv == null) {
      return "podSet group " + group + ": Topology of flavor " + flavor + " does not exist";
    }
    int at = inv.levels().indexOf(level);
    if (at < 0) {
      return "podSet group " + group + ": level " + level + " is not a level of its topology";
    }
    for (TopologyDomain domain : inv.domainsAt(at)) {
      Map<String, String> labels = new HashMap<>();
      for (int l = 0; l <= at; l++) {
        labels.put(inv.levels().get(l), domain.values[l]);
      }
      List<Held> tried = new ArrayList<>();
      Map<String, PodSetAssignment> here = new HashMap<>();
      for (PodSetAssignment m : members) {
        PodSet spec = spec(specs, m.name());
        List<Held> before = new ArrayList<>(held);
        before.addAll(tried);
        NodeInventory within = nodesWithin(flavor, spec, inv, before, labels);
        Placement p = placer.place(within, m.count(), spec.requests(), spec.topologyRequest());
        if (!p.isPlaced()) {
          break;
        }
        tried.add(new Held(m.flavors(), p.assignment(), spec.requests()));
        here.put(m.name(), m.withTopology(p.assignment()));
      }
      if (here.size() == members.size()) {
        for (Held h : tried) {
          inv.addPlacement(h.assignment, h.perPod);
          held.add(h);
        }
        placed.putAll(here);
        return null;
      }
    }
    return "podSet group "
        + group
        + " in flavor "
        + flavor
        + ": no "
        + level
        + " holds all of its podSets "
        + members.stream().map(PodSetAssignment::name).toList();
  }

  /**
   * Why some podSets' pods fit no node of their flavors ({@link NodeReach}), one line each; empty
   * when every podSet has a node, or when no node is known at all (nodes an autoscaler will bring,
   * or a cluster Berth sees no nodes of).
   */
  public List<String> unreachable(List<PodSet> specs, List<PodSetAssignment> podSets) {
    if (nodes.isEmpty()) {
      return List.of();
    }
    List<String> out = new ArrayList<>();
    for (PodSetAssignment psa : podSets) {
      PodSet spec = spec(specs, psa.name());
      if (spec == null || psa.count() == 0) {
        continue;
      }
      for (String name : new java.util.TreeSet<>(psa.flavors().values())) {
        ResourceFlavor flavor = flavors.get(name);
        String why = flavor == null ? null : NodeReach.unreachable(spec, flavor, nodes.values());
        if (why != null) {
          out.add(why);
          break;
        }
      }
    }
    return out;
  }

  /** Whether the admitted workload holds placements (so the engine knows which nodes it frees). */
  public boolean holdsPlacements(String uid) {
    return placements.containsKey(uid);
  }

  /**
   * Why the podSets could not be placed even once the placements of {@code gone} are released, or
   * null if they could. Changes nothing: the release and the placement are undone.
   */
  public Explanation refusalWithout(
      Collection<String> gone, List<PodSet> specs, List<PodSetAssignment> podSets) {
    if (!asksForTopology(specs)) {
      return null;
    }
    ensure();
    Map<String, List<Held>> released = new LinkedHashMap<>();
    for (String uid : gone) {
      List<Held> held = placements.get(uid);
      if (held != null) {
        released.put(uid, held);
        release(uid);
      }
    }
    Result probe = place(PROBE, specs, podSets);
    release(PROBE);
    released.forEach(
        (uid, held) -> {
          placements.put(uid, held);
          apply(held, true);
        });
    return probe.refused();
  }

  /** Restart: an admitted workload's stored placements take their capacity again. */
  public void record(String uid, List<PodSet> specs, List<PodSetAssignment> podSets) {
    List<Held> held = new ArrayList<>();
    for (PodSetAssignment psa : podSets) {
      PodSet spec = spec(specs, psa.name());
      if (psa.topologyAssignment() != null && spec != null) {
        held.add(new Held(psa.flavors(), psa.topologyAssignment(), spec.requests()));
      }
    }
    if (held.isEmpty()) {
      return;
    }
    placements.put(uid, held);
    if (!stale) {
      apply(held, true);
    }
  }

  /** Returns true when the workload held placements, now free. */
  public boolean release(String uid) {
    List<Held> held = placements.remove(uid);
    if (held == null) {
      return false;
    }
    if (!stale) {
      apply(held, false);
    }
    return true;
  }

  /** The flavor inventories, current (read on the engine's thread only). */
  public Map<String, NodeInventory> inventories() {
    ensure();
    return Collections.unmodifiableMap(inventories);
  }

  // ---------------------------------------------------------------- private

  private static Result refused(String message) {
    return new Result(null, Explanation.of(PendingReason.TopologyPlacementFailed, message));
  }

  /** On every admission's path: a plain loop, no stream. */
  private static boolean asksForTopology(List<PodSet> specs) {
    for (PodSet ps : specs) {
      if (ps.topologyRequest() != null) {
        return true;
      }
    }
    return false;
  }

  private static PodSet spec(List<PodSet> specs, String name) {
    for (PodSet ps : specs) {
      if (ps.name().equals(name)) {
        return ps;
      }
    }
    return null;
  }

  /** The topology-aware flavor of a podSet: that of its first resource, by name, that has one. */
  private String topologyFlavor(Map<String, String> flavorByResource) {
    for (String flavor : new TreeMap<>(flavorByResource).values()) {
      ResourceFlavor f = flavors.get(flavor);
      if (f != null && f.topologyName() != null) {
        return flavor;
      }
    }
    return null;
  }

  /**
   * The flavor's inventory, or, when the podSet's nodeSelector or required node affinity rule out
   * some of its nodes, a copy of it built from the nodes they allow: placing pods on nodes they
   * cannot run on would leave them unschedulable. Every leaf of the copy is a leaf of the flavor's
   * inventory, so the placement found is charged there. Costs a build, only for such podSets.
   */
  private NodeInventory selectedNodes(
      String flavor, PodSet spec, NodeInventory inv, List<Held> inProgress) {
    if (spec.nodeSelector().isEmpty() && spec.requiredNodeAffinity().isEmpty()) {
      return inv;
    }
    return nodesWithin(flavor, spec, inv, inProgress, Map.of());
  }

  /** The inventory of the nodes the podSet may use that carry {@code domain}'s labels too. */
  private NodeInventory nodesWithin(
      String flavor,
      PodSet spec,
      NodeInventory inv,
      List<Held> inProgress,
      Map<String, String> domain) {
    List<TopologyNode> allowed =
        nodes.values().stream()
            .filter(n -> n.labels().entrySet().containsAll(domain.entrySet()))
            .filter(n -> NodeLabelMatcher.selects(spec, n.labels()))
            .toList();
    NodeInventory copy = build(flavors.get(flavor), inv.topology(), allowed);
    List<Held> all = new ArrayList<>(inProgress);
    placements.values().forEach(all::addAll);
    for (Held h : all) {
      if (flavor.equals(topologyFlavor(h.flavors))) {
        charge(copy, h, true);
      }
    }
    boundPods.values().forEach(p -> charge(copy, p, true));
    return copy;
  }

  /** Takes or gives back a pod's requests on every inventory. */
  private void charge(BoundPod pod, boolean take) {
    if (stale) {
      return;
    }
    TopologyNode node = nodes.get(pod.node);
    if (node != null && subDomainOf(node, pod) == null && node.subDomains().size() > 1) {
      // Which sub-domains such a pod takes depends on the pods before it (first fit, in order);
      // giving it back in place could leave the others charged where a fresh build would not.
      stale = true;
      return;
    }
    for (NodeInventory inv : inventories.values()) {
      charge(inv, pod, take);
    }
  }

  private void charge(NodeInventory inv, BoundPod pod, boolean take) {
    TopologyNode node = nodes.get(pod.node);
    String sub =
        node == null || inv.topology().subNodeLevel() == null ? null : subDomainOf(node, pod);
    if (take) {
      inv.addBoundPod(pod.node, sub, pod.requests);
    } else {
      inv.removeBoundPod(pod.node, sub, pod.requests);
    }
  }

  /** The pod's sub-domain if its node has one of that name; null means "in order". */
  private static String subDomainOf(TopologyNode node, BoundPod pod) {
    for (NodeSubDomain s : node.subDomains()) {
      if (s.name().equals(pod.subDomain)) {
        return s.name();
      }
    }
    return null;
  }

  /** Takes or gives back placements on their flavors' current inventories. */
  private void apply(Collection<Held> held, boolean take) {
    for (Held h : held) {
      String flavor = topologyFlavor(h.flavors);
      NodeInventory inv = flavor == null ? null : inventories.get(flavor);
      if (inv != null) {
        charge(inv, h, take);
      }
    }
  }

  private static void charge(NodeInventory inv, Held h, boolean take) {
    if (!inv.levels().equals(h.assignment.levels())) {
      return; // its Topology changed levels since: nothing of it to charge
    }
    if (take) {
      inv.addPlacement(h.assignment, h.perPod);
    } else {
      inv.removePlacement(h.assignment, h.perPod);
    }
  }

  private void ensure() {
    if (!stale) {
      return;
    }
    Map<String, NodeInventory> built = new TreeMap<>();
    broken.clear();
    for (ResourceFlavor f : flavors.values()) {
      Topology t = f.topologyName() == null ? null : topologies.get(f.topologyName());
      if (t == null) {
        continue;
      }
      try {
        built.put(f.name(), build(f, t, nodes.values()));
      } catch (IllegalArgumentException e) {
        broken.put(f.name(), " is unusable: " + e.getMessage());
      }
    }
    inventories = built;
    stale = false;
    // Placements first: they were placed where capacity was free, so they fit; bound pods then
    // fill what is left, as the kubelet would have found it.
    placements.values().forEach(held -> apply(held, true));
    for (BoundPod p : boundPods.values()) {
      for (NodeInventory inv : inventories.values()) {
        charge(inv, p, true);
      }
    }
  }

  private static NodeInventory build(
      ResourceFlavor f, Topology t, Collection<TopologyNode> candidates) {
    return NodeInventory.builder(t)
        .nodeLabels(f.nodeLabels())
        .tolerations(tolerations(f))
        .nodes(List.copyOf(candidates))
        .build();
  }

  /** Workloads admitted to a flavor tolerate its taints (the flavor's admission demands it). */
  private static List<Toleration> tolerations(ResourceFlavor f) {
    List<Toleration> out = new ArrayList<>(f.tolerations());
    for (Taint t : f.nodeTaints()) {
      out.add(new Toleration(t.key(), Toleration.Operator.Equal, t.value(), t.effect()));
    }
    return out;
  }
}
