package dev.berth.api.v1beta1;

import dev.berth.api.crd.MaxLength;
import dev.berth.api.crd.Rule;
import io.fabric8.generator.annotation.Min;

/** Where the pods of a podSet must (or should) be placed together. */
@Rule(
    value =
        "[has(self.required), has(self.preferred), has(self.unconstrained) && self.unconstrained].filter(x, x).size() <= 1",
    message = "only one of required, preferred and unconstrained may be set")
@Rule(
    value = "has(self.podSetSliceRequiredTopology) == has(self.podSetSliceSize)",
    message = "podSetSliceRequiredTopology and podSetSliceSize go together")
public class TopologyRequest {
  /** A Topology level label: all pods in one domain of that level, or no admission. */
  @MaxLength(317)
  public String required;

  /** A level to try first, then the next level up, then spread. */
  @MaxLength(317)
  public String preferred;

  public Boolean unconstrained;

  /** The level each slice of podSetSliceSize pods must share. */
  @MaxLength(317)
  public String podSetSliceRequiredTopology;

  @Min(1)
  public Integer podSetSliceSize;
}
