package dev.berth.api.v1beta1;

import dev.berth.api.crd.Items;
import dev.berth.api.crd.MaxLength;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.List;
import java.util.Map;

/** The flavor of each resource of a podSet, the quota it reserved, and its pod count. */
public class PodSetAssignment {
  @MaxLength(63)
  public String name;

  @Items(max = 1024)
  @MaxLength(253)
  public Map<String, String> flavors;

  @Items(max = 1024)
  public Map<String, Quantity> resourceUsage;

  public Integer count;
  public TopologyAssignment topologyAssignment;

  /** The domains a topology-aware podSet was placed in, and how many pods go to each. */
  public static class TopologyAssignment {
    @Items(max = 16)
    @MaxLength(317)
    public List<String> levels;

    @Items(max = 100000)
    public List<Domain> domains;

    /** One domain, named by its values at each level. */
    public static class Domain {
      @Items(max = 16)
      @MaxLength(63)
      public List<String> values;

      public Integer count;
    }
  }
}
