package dev.berth.engine.flavor;

import dev.berth.engine.model.ClusterQueue;
import dev.berth.engine.model.FlavorQuotas;
import dev.berth.engine.model.ResourceFlavor;
import dev.berth.engine.model.ResourceGroup;
import dev.berth.engine.quota.FlavorResources;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A ClusterQueue's resource groups resolved against the known ResourceFlavors and interned
 * flavor-resource indices: what the FlavorAssigner walks. Immutable; recompiled on any change.
 */
public final class CompiledQueue {
  /** One resource group: its resources and its flavors in order. */
  public static final class Group {
    final String[] resources;
    final Option[] flavors;

    Group(String[] resources, Option[] flavors) {
      this.resources = resources;
      this.flavors = flavors;
    }
  }

  /** One flavor of a group; {@code frs[i]} is the flavor-resource of {@code resources[i]}. */
  public static final class Option {
    final String name;
    final ResourceFlavor flavor;
    final int[] frs;

    Option(String name, ResourceFlavor flavor, int[] frs) {
      this.name = name;
      this.flavor = flavor;
      this.frs = frs;
    }
  }

  private final ClusterQueue spec;
  final Group[] groups;
  final Map<String, Integer> groupOfResource = new HashMap<>();
  private final String missingFlavor;

  public CompiledQueue(
      ClusterQueue spec, Map<String, ResourceFlavor> flavors, FlavorResources frs) {
    this.spec = spec;
    List<ResourceGroup> rgs = spec.resourceGroups();
    groups = new Group[rgs.size()];
    String missing = null;
    for (int g = 0; g < rgs.size(); g++) {
      ResourceGroup rg = rgs.get(g);
      String[] resources = rg.coveredResources().toArray(new String[0]);
      for (String r : resources) {
        groupOfResource.putIfAbsent(r, g);
      }
      Option[] options = new Option[rg.flavors().size()];
      for (int f = 0; f < options.length; f++) {
        FlavorQuotas fq = rg.flavors().get(f);
        int[] ids = new int[resources.length];
        for (int r = 0; r < resources.length; r++) {
          ids[r] = frs.intern(fq.name(), resources[r]);
        }
        ResourceFlavor rf = flavors.get(fq.name());
        if (rf == null && missing == null) {
          missing = fq.name();
        }
        options[f] = new Option(fq.name(), rf, ids);
      }
      groups[g] = new Group(resources, options);
    }
    missingFlavor = missing;
  }

  /**
   * Whether this compilation still describes the spec with the current flavors (same objects), so
   * that plans built on it stay valid and a change elsewhere does not rebuild them.
   */
  public boolean upToDate(ClusterQueue current, Map<String, ResourceFlavor> flavors) {
    if (current != spec) {
      return false;
    }
    for (Group g : groups) {
      for (Option o : g.flavors) {
        if (flavors.get(o.name) != o.flavor) {
          return false;
        }
      }
    }
    return true;
  }

  /** Interns every flavor-resource a ClusterQueue's spec names, so the QuotaTree can index it. */
  public static void internAll(List<ResourceGroup> groups, FlavorResources frs) {
    for (ResourceGroup rg : groups) {
      for (FlavorQuotas fq : rg.flavors()) {
        for (String r : rg.coveredResources()) {
          frs.intern(fq.name(), r);
        }
        fq.resources().forEach(q -> frs.intern(fq.name(), q.name()));
      }
    }
  }

  public ClusterQueue spec() {
    return spec;
  }

  public String name() {
    return spec.name();
  }

  /** The first flavor the ClusterQueue names that does not exist, or null. */
  public String missingFlavor() {
    return missingFlavor;
  }

  public boolean covers(String resource) {
    return groupOfResource.containsKey(resource);
  }
}
