package dev.berth.api.v1beta1;

import dev.berth.api.crd.Items;
import dev.berth.api.crd.ListType;
import dev.berth.api.crd.MaxLength;
import dev.berth.api.crd.Rule;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.Toleration;
import java.util.List;
import java.util.Map;

/** What distinguishes the nodes of one flavor, and what a pod needs to land on them. */
@Rule(
    value = "!has(self.topologyName) || has(self.nodeLabels)",
    message = "topologyName requires nodeLabels")
@Rule(
    value =
        "has(oldSelf.topologyName) == has(self.topologyName) && (!has(self.topologyName) || self.topologyName == oldSelf.topologyName)",
    message = "topologyName is immutable")
public class ResourceFlavorSpec {
  /** Labels of the flavor's nodes; added to the nodeSelector of admitted pods. */
  @Items(max = 8)
  @MaxLength(63)
  public Map<String, String> nodeLabels;

  /** Taints of the flavor's nodes; a workload must tolerate them to use the flavor. */
  @Items(max = 8)
  @ListType(
      value = "map",
      keys = {"key", "effect"})
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
      value =
          "self.all(x, !has(x.operator) || x.operator != 'Exists' || !has(x.value) || x.value == '')",
      message = "a toleration with operator Exists must not have a value")
  public List<Toleration> tolerations;

  /** The Topology whose levels describe these nodes (topology-aware admission). */
  @Pattern(Berth.DNS_SUBDOMAIN)
  @MaxLength(253)
  public String topologyName;

  /**
   * Capacity of the flavor's nodes kept for the platform (burn-in, canaries, system pods that quota
   * must not promise), per resource, for the flavor as a whole. Subtracted from allocatable
   * capacity in the status; admission does not read it.
   */
  @Items(max = 16)
  @MaxLength(64)
  @Rule(
      value = "self.all(k, k.matches('" + Berth.RESOURCE_NAME + "'))",
      message = "platformReservation keys must be resource names such as nvidia.com/gpu")
  @Rule(
      value =
          "self.all(k, isQuantity(string(self[k])) && "
              + "!quantity(string(self[k])).isLessThan(quantity('0')))",
      message = "platformReservation values must be zero or positive quantities such as 8 or 64Gi")
  public Map<String, Quantity> platformReservation;

  /**
   * DRA devices by attribute: every selector must hold for a device the flavor's pods are allocated
   * through their ResourceClaimTemplates (Berth adds them to the claims' requests), and only
   * devices they select count in the flavor's capacity (docs/dra.md).
   */
  @Items(max = 8)
  public List<FlavorDeviceSelector> deviceSelectors;
}
