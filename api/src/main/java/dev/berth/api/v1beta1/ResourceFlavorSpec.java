package dev.berth.api.v1beta1;

import dev.berth.api.crd.MaxLength;
import dev.berth.api.crd.ListType;
import dev.berth.api.crd.Items;
import io.fabric8.generator.annotation.Pattern;
import dev.berth.api.crd.Rule;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.Toleration;
import java.util.List;
import java.util.Map;

/** What distinguishes the nodes of one flavor, and what a pod needs to land on them. */
@Rule(
    value = "!has(self.topologyName) || has(self.nodeLabels)",
    message = "topologyName requires nodeLabels")
@Rule(
    value = "has(oldSelf.topologyName) == has(self.topologyName) && (!has(self.topologyName) || self.topologyName == oldSelf.topologyName)",
    message = "topologyName is immutable")
public class ResourceFlavorSpec {
  /** Labels of the flavor's nodes; added to the nodeSelector of admitted pods. */
  @Items(max = 8)
  public Map<String, String> nodeLabels;

  /** Taints of the flavor's nodes; a workload must tolerate them to use the flavor. */
  @Items(max = 8)
  @ListType(value = "map", keys = {"key", "effect"})
  @Rule(
      value = "self.all(x, x.effect in ['NoSchedule', 'PreferNoSchedule', 'NoExecute'])",
      message = "taint effect must be one of NoSchedule, PreferNoSchedule, NoExecute")
  public List<Taint> nodeTaints;

  /** Tolerations added to admitted pods. */
  @Items(max = 8)
  @Rule(
      value = "self.all(x, !has(x.operator) || x.operator in ['Equal', 'Exists'])",
      message = "toleration operator must be Equal or Exists")
  @Rule(
      value = "self.all(x, !has(x.operator) || x.operator != 'Exists' || !has(x.value) || x.value == '')",
      message = "a toleration with operator Exists must not have a value")
  public List<Toleration> tolerations;

  /** The Topology whose levels describe these nodes (topology-aware admission). */
  @Pattern(Berth.DNS_SUBDOMAIN)
  @MaxLength(253)
  public String topologyName;
}
