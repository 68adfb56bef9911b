package dev.berth.api.v1beta1;

import dev.berth.api.crd.Items;
import dev.berth.api.crd.ListType;
import dev.berth.api.crd.MaxLength;
import dev.berth.api.crd.Rule;
import io.fabric8.generator.annotation.Required;
import java.util.List;

/** Levels, each a node label; kubernetes.io/hostname may only be the last. */
public class TopologySpec {
  @Required
  @Items(min = 1, max = 16)
  @ListType(value = "map", keys = "nodeLabel")
  @Rule(
      value =
          "self.all(x, x.nodeLabel != 'kubernetes.io/hostname' || self[size(self) - 1].nodeLabel == 'kubernetes.io/hostname')",
      message = "kubernetes.io/hostname may only be the last level")
  public List<TopologyLevel> levels;

  /** One level of the topology. */
  public static class TopologyLevel {
    @Required
    @io.fabric8.generator.annotation.Pattern(Berth.LABEL_KEY)
    @MaxLength(316)
    public String nodeLabel;

    public TopologyLevel() {}

    public TopologyLevel(String nodeLabel) {
      this.nodeLabel = nodeLabel;
    }
  }
}
