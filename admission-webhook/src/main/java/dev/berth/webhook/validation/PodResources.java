package dev.berth.webhook.validation;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.Quantity;
import java.math.BigDecimal;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * What a pod spec (as JSON, a pod's or a Job template's) asks of a set of resources, counted the
 * way the operator's {@code PodRequests} charges quota (a limit stands in for a missing request;
 * sidecars add to the containers, an ordinary init container needs its own plus the sidecars before
 * it; pod-level {@code spec.resources} replace the containers' cpu, memory and hugepages; plus the
 * overhead), and the first field that names one of them. The operator's class reads fabric8's typed
 * PodSpec and lives where the webhook cannot depend on it; this is the same count on the JSON the
 * webhook receives.
 */
public final class PodResources {
  private static final FieldPath SPEC = FieldPath.root("spec");

  private PodResources() {}

  /** The pod's total of each resource of {@code names} it asks for (absent: none). */
  public static Map<String, BigDecimal> totals(JsonNode spec, Set<String> names) {
    Map<String, BigDecimal> total = new TreeMap<>();
    for (JsonNode container : spec.path("containers")) {
      addTo(total, amounts(container.path("resources"), names));
    }
    Map<String, BigDecimal> sidecars = new TreeMap<>();
    Map<String, BigDecimal> largestInitStep = new TreeMap<>();
    for (JsonNode init : spec.path("initContainers")) {
      Map<String, BigDecimal> own = amounts(init.path("resources"), names);
      Map<String, BigDecimal> step = new TreeMap<>(own);
      addTo(step, sidecars);
      if ("Always".equals(init.path("restartPolicy").asText(null))) {
        addTo(total, own);
        addTo(sidecars, own);
      }
      step.forEach((name, amount) -> largestInitStep.merge(name, amount, BigDecimal::max));
    }
    largestInitStep.forEach((name, amount) -> total.merge(name, amount, BigDecimal::max));
    amounts(spec.path("resources"), names)
        .forEach(
            (name, amount) -> {
              if (name.equals("cpu") || name.equals("memory") || name.startsWith("hugepages-")) {
                total.put(name, amount);
              }
            });
    spec.path("overhead")
        .fields()
        .forEachRemaining(
            e -> {
              if (names.contains(e.getKey())) {
                amount(e.getValue()).ifPresent(a -> total.merge(e.getKey(), a, BigDecimal::add));
              }
            });
    total.values().removeIf(amount -> amount.signum() <= 0);
    return total;
  }

  /**
   * The first field of the pod ({@code spec.containers[0].resources.requests[nvidia.com/gpu]}) that
   * asks for a positive amount of one of {@code names}, or empty when none does.
   */
  public static Optional<FieldPath> firstAsking(JsonNode spec, Set<String> names) {
    for (String list : new String[] {"containers", "initContainers"}) {
      JsonNode containers = spec.path(list);
      for (int i = 0; containers.isArray() && i < containers.size(); i++) {
        Optional<FieldPath> found =
            asking(
                containers.get(i).path("resources"),
                SPEC.child(list).index(i).child("resources"),
                names);
        if (found.isPresent()) {
          return found;
        }
      }
    }
    Optional<FieldPath> podLevel = asking(spec.path("resources"), SPEC.child("resources"), names);
    if (podLevel.isPresent()) {
      return podLevel;
    }
    return asking(spec, SPEC, Set.of("overhead"), names);
  }

  private static Optional<FieldPath> asking(JsonNode resources, FieldPath path, Set<String> names) {
    return asking(resources, path, Set.of("requests", "limits"), names);
  }

  private static Optional<FieldPath> asking(
      JsonNode parent, FieldPath path, Set<String> maps, Set<String> names) {
    for (String map : new String[] {"requests", "limits", "overhead"}) {
      if (!maps.contains(map)) {
        continue;
      }
      var fields = parent.path(map).fields();
      while (fields.hasNext()) {
        var e = fields.next();
        if (names.contains(e.getKey())
            && amount(e.getValue()).filter(a -> a.signum() > 0).isPresent()) {
          return Optional.of(path.child(map).key(e.getKey()));
        }
      }
    }
    return Optional.empty();
  }

  /** A container's requests of {@code names}, its limits standing in for missing ones. */
  private static Map<String, BigDecimal> amounts(JsonNode resources, Set<String> names) {
    Map<String, BigDecimal> result = new TreeMap<>();
    for (String map : new String[] {"limits", "requests"}) {
      resources
          .path(map)
          .fields()
          .forEachRemaining(
              e -> {
                if (names.contains(e.getKey())) {
                  amount(e.getValue()).ifPresent(a -> result.put(e.getKey(), a));
                }
              });
    }
    return result;
  }

  private static void addTo(Map<String, BigDecimal> total, Map<String, BigDecimal> more) {
    more.forEach((name, amount) -> total.merge(name, amount, BigDecimal::add));
  }

  private static Optional<BigDecimal> amount(JsonNode quantity) {
    return quantity.isTextual() || quantity.isNumber()
        ? Quantities.value(new Quantity(quantity.asText()))
        : Optional.empty();
  }
}
