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
@Rule(
    value = "has(self.subGroupIndexLabel) == has(self.subGroupCount)",
    message = "subGroupIndexLabel and subGroupCount go together")
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

  /**
   * The pod label holding each pod's index in its podSet (a Job's {@code
   * batch.kubernetes.io/job-completion-index}): pods are released into the assigned domains in
   * index order, so neighbouring ranks share the closest domain.
   */
  @MaxLength(317)
  public String podIndexLabel;

  /**
   * The pod label holding the index of the pod's group within the podSet (a JobSet's {@code
   * jobset.sigs.k8s.io/job-index}); the pod's rank is its group index times the pods per group plus
   * its {@link #podIndexLabel} index.
   */
  @MaxLength(317)
  public String subGroupIndexLabel;

  /** How many groups the podSet's pods form; goes with {@link #subGroupIndexLabel}. */
  @Min(1)
  public Integer subGroupCount;

  /**
   * PodSets of one Workload with the same group name are placed together: the same flavor, and,
   * when they ask for a required level, the same domain of that level (an LWS leader with its
   * workers).
   */
  @MaxLength(256)
  public String podSetGroupName;
}
