package dev.berth.operator.capacity;

import dev.berth.webhook.dra.cel.DeviceSelectorCel;
import dev.berth.webhook.dra.cel.DraDevice;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClass;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceSelector;
import java.util.ArrayList;
import java.util.List;

/**
 * Which published devices a DeviceClass selects, for counting a flavor's DRA capacity: its {@code
 * spec.selectors}, compiled in DRA's CEL environment (the one flavors' {@code deviceSelectors} are
 * compiled in, {@link DeviceSelectorCel}), must all hold, as kube-scheduler requires. A class
 * without selectors selects every device. An expression that fails on a device (a name the device
 * lacks) selects it not: kube-scheduler's allocator stops with that error when it meets the device,
 * so the class never allocates it.
 */
public final class DeviceClassSelectors {
  private final List<DeviceSelectorCel.Selector> selectors;

  private DeviceClassSelectors(List<DeviceSelectorCel.Selector> selectors) {
    this.selectors = List.copyOf(selectors);
  }

  /**
   * The class's selectors; {@link IllegalArgumentException} naming the selector when one does not
   * compile here (an expression of a newer Kubernetes than Berth's environment knows, or a selector
   * that is not CEL): its devices are then counted for no resource rather than guessed.
   */
  public static DeviceClassSelectors of(DeviceClass deviceClass) {
    var spec = deviceClass.getSpec();
    List<DeviceSelector> declared =
        spec == null || spec.getSelectors() == null ? List.of() : spec.getSelectors();
    List<DeviceSelectorCel.Selector> compiled = new ArrayList<>();
    for (int i = 0; i < declared.size(); i++) {
      DeviceSelector selector = declared.get(i);
      String expression = selector.getCel() == null ? null : selector.getCel().getExpression();
      String at = "spec.selectors[" + i + "]";
      if (expression == null) {
        throw new IllegalArgumentException(at + ": not a CEL selector");
      }
      try {
        compiled.add(DeviceSelectorCel.compiled(expression));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(at + ".cel.expression: " + e.getMessage(), e);
      }
    }
    return new DeviceClassSelectors(compiled);
  }

  /** Whether every selector of the class selects the device. */
  public boolean selects(DraDevice device) {
    for (DeviceSelectorCel.Selector s : selectors) {
      if (!s.selects(device)) {
        return false;
      }
    }
    return true;
  }
}
