package dev.berth.operator.job;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What one pod of a template asks the scheduler for, as kube-scheduler counts it: the sum over
 * containers (a limit stands in for a missing request), at least the largest init container, plus
 * the pod overhead.
 */
public final class PodRequests {
  private PodRequests() {}

  public static Map<String, Quantity> of(PodSpec spec) {
    Map<String, BigDecimal> total = new TreeMap<>();
    if (spec == null) {
      return Map.of();
    }
    for (Container container : nullSafe(spec.getContainers())) {
      requests(container).forEach((name, amount) -> total.merge(name, amount, BigDecimal::add));
    }
    for (Container init : nullSafe(spec.getInitContainers())) {
      requests(init).forEach((name, amount) -> total.merge(name, amount, BigDecimal::max));
    }
    if (spec.getOverhead() != null) {
      spec.getOverhead()
          .forEach((name, q) -> total.merge(name, q.getNumericalAmount(), BigDecimal::add));
    }
    Map<String, Quantity> result = new TreeMap<>();
    total.forEach((name, amount) -> result.put(name, new Quantity(amount.toPlainString())));
    return result;
  }

  private static Map<String, BigDecimal> requests(Container container) {
    Map<String, BigDecimal> result = new TreeMap<>();
    ResourceRequirements resources = container.getResources();
    if (resources == null) {
      return result;
    }
    if (resources.getLimits() != null) {
      resources.getLimits().forEach((name, q) -> result.put(name, q.getNumericalAmount()));
    }
    if (resources.getRequests() != null) {
      resources.getRequests().forEach((name, q) -> result.put(name, q.getNumericalAmount()));
    }
    return result;
  }

  private static <T> List<T> nullSafe(List<T> list) {
    return list == null ? List.of() : list;
  }
}
