package dev.berth.api.v1beta1;

import dev.berth.api.crd.MaxLength;
import dev.berth.api.crd.Rule;
import io.fabric8.crd.generator.annotation.PreserveUnknownFields;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;

/** A group of identical pods: count copies of one template. */
@Rule(
    value = "!has(self.minCount) || self.minCount <= self.count",
    message = "minCount must be less than or equal to count")
public class PodSet {
  @Required
  @Pattern(Berth.DNS_LABEL)
  @MaxLength(63)
  public String name;

  @Required
  @Min(0)
  public Integer count;

  /** With partial admission, the fewest pods the workload accepts. */
  @Min(1)
  public Integer minCount;

  /**
   * The pod template. Its schema is the Pod's, checked by the webhook and by the Job's own API;
   * embedding the full Pod schema here would make the CRD larger than etcd's object limit allows
   * comfortably, as Kueue's users have found.
   */
  @Required @PreserveUnknownFields public PodTemplateSpec template;

  public TopologyRequest topologyRequest;

  public PodSet() {}

  public PodSet(String name, int count, PodTemplateSpec template) {
    this.name = name;
    this.count = count;
    this.template = template;
  }
}
