package dev.berth.testing;

import dev.berth.api.v1beta1.ResourceFlavor;
import dev.berth.api.v1beta1.ResourceFlavorSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.TaintBuilder;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.TolerationBuilder;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A ResourceFlavor: {@code ResourceFlavors.named("h100").nodeLabel("gpu", "h100")
 * .taint("nvidia.com/gpu", "present", "NoSchedule")}.
 */
public final class ResourceFlavors {
  private final ResourceFlavor flavor = new ResourceFlavor();
  private final ResourceFlavorSpec spec = new ResourceFlavorSpec();

  private ResourceFlavors(String name) {
    flavor.getMetadata().setName(name);
    flavor.setSpec(spec);
  }

  public static ResourceFlavors named(String name) {
    return new ResourceFlavors(name);
  }

  public ResourceFlavors nodeLabel(String key, String value) {
    if (spec.nodeLabels == null) {
      spec.nodeLabels = new LinkedHashMap<>();
    }
    spec.nodeLabels.put(key, value);
    return this;
  }

  public ResourceFlavors nodeLabels(Map<String, String> labels) {
    labels.forEach(this::nodeLabel);
    return this;
  }

  public ResourceFlavors taint(String key, String value, String effect) {
    Taint taint = new TaintBuilder().withKey(key).withValue(value).withEffect(effect).build();
    if (spec.nodeTaints == null) {
      spec.nodeTaints = new ArrayList<>();
    }
    spec.nodeTaints.add(taint);
    return this;
  }

  /** A toleration added to admitted pods: {@code Exists} on the key, for the effect. */
  public ResourceFlavors toleration(String key, String effect) {
    Toleration toleration =
        new TolerationBuilder().withKey(key).withOperator("Exists").withEffect(effect).build();
    if (spec.tolerations == null) {
      spec.tolerations = new ArrayList<>();
    }
    spec.tolerations.add(toleration);
    return this;
  }

  /** Topology-aware: placed on the nodes of this Topology (needs node labels, as the CRD says). */
  public ResourceFlavors topology(String topology) {
    spec.topologyName = topology;
    return this;
  }

  public ResourceFlavors platformReservation(String resource, String amount) {
    if (spec.platformReservation == null) {
      spec.platformReservation = new LinkedHashMap<>();
    }
    spec.platformReservation.put(resource, new Quantity(amount));
    return this;
  }

  public ResourceFlavor build() {
    return flavor;
  }
}
