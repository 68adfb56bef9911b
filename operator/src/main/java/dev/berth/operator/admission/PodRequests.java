package dev.berth.operator.admission;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What one pod of a template asks the scheduler for, counted as kube-scheduler counts it, so that
 * the quota Berth charges is what the pod really holds on its node:
 *
 * <ol>
 *   <li>the sum over containers (a limit stands in for a missing request, as the API server
 *       defaults it when the pod is created);
 *   <li>sidecars (init containers with {@code restartPolicy: Always}) run beside the containers for
 *       the pod's whole life, so they add to that sum;
 *   <li>an ordinary init container runs alone, but after the sidecars started before it, so it
 *       needs its own requests plus theirs; the pod needs at least the largest of those;
 *   <li>pod-level requests ({@code spec.resources}), where given, replace the containers' total for
 *       the resources that may be set at pod level (cpu, memory, hugepages);
 *   <li>plus the pod overhead of its RuntimeClass.
 * </ol>
 *
 * Counting a sidecar's GPUs as an init container's (the larger of the two, not the sum) would let a
 * pod hold twice what it was admitted for.
 */
public final class PodRequests {
  private static final String SIDECAR = "Always";

  private PodRequests() {}

  public static Map<String, Quantity> of(PodSpec spec) {
    if (spec == null) {
      return Map.of();
    }
    Map<String, BigDecimal> total = new TreeMap<>();
    for (Container container : nullSafe(spec.getContainers())) {
      addTo(total, requests(container.getResources()));
    }
    Map<String, BigDecimal> sidecars = new TreeMap<>();
    Map<String, BigDecimal> largestInitStep = new TreeMap<>();
    for (Container init : nullSafe(spec.getInitContainers())) {
      Map<String, BigDecimal> own = requests(init.getResources());
      Map<String, BigDecimal> step = new TreeMap<>();
      if (SIDECAR.equals(init.getRestartPolicy())) {
        addTo(total, own);
        addTo(sidecars, own);
        addTo(step, sidecars);
      } else {
        addTo(step, own);
        addTo(step, sidecars);
      }
      step.forEach((name, amount) -> largestInitStep.merge(name, amount, BigDecimal::max));
    }
    largestInitStep.forEach((name, amount) -> total.merge(name, amount, BigDecimal::max));
    requests(spec.getResources())
        .forEach(
            (name, amount) -> {
              if (settableAtPodLevel(name)) {
                total.put(name, amount);
              }
            });
    if (spec.getOverhead() != null) {
      spec.getOverhead()
          .forEach((name, q) -> total.merge(name, q.getNumericalAmount(), BigDecimal::add));
    }
    Map<String, Quantity> result = new TreeMap<>();
    total.forEach((name, amount) -> result.put(name, new Quantity(amount.toPlainString())));
    return result;
  }

  /** The resources Kubernetes accepts in a pod's own {@code spec.resources}. */
  private static boolean settableAtPodLevel(String name) {
    return name.equals("cpu") || name.equals("memory") || name.startsWith("hugepages-");
  }

  private static void addTo(Map<String, BigDecimal> total, Map<String, BigDecimal> more) {
    more.forEach((name, amount) -> total.merge(name, amount, BigDecimal::add));
  }

  private static Map<String, BigDecimal> requests(ResourceRequirements resources) {
    Map<String, BigDecimal> result = new TreeMap<>();
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
