package dev.berth.api.v1beta1;

import io.fabric8.kubernetes.api.model.Quantity;
import java.util.List;
import java.util.Map;

/** The flavor of each resource of a podSet, the quota it reserved, and its pod count. */
public class PodSetAssignment {
  public String name;
  public Map<String, String> flavors;
  public Map<String, Quantity> resourceUsage;
  public Integer count;
  public TopologyAssignment topologyAssignment;

  /** The domains a topology-aware podSet was placed in, and how many pods go to each. */
  public static class TopologyAssignment {
    public List<String> levels;
    public List<Domain> domains;

    /** One domain, named by its values at each level. */
    public static class Domain {
      public List<String> values;
      public Integer count;
    }
  }
}
