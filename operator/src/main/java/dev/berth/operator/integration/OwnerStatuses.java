package dev.berth.operator.integration;

import dev.berth.api.v1beta1.Workload;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * Each Workload's owner (the object it was made for, by kind and name) with the owner's own state,
 * as its kind says it ({@link Integration#ownerStatus}: a RayJob's {@code jobDeploymentStatus}, a
 * Job's last condition), for {@code kubectl berth pending} and the dashboard. Read when asked, from
 * the informers' caches the reconcilers already keep: the Workload's, and each kind's own (every
 * kind's reconciler adds its cache when it starts, {@link IntegrationReconciler}, so a kind of the
 * registry gets a status without code here, a kind switched on after start from then on). No API
 * call and no write, whatever the number of Workloads.
 */
public final class OwnerStatuses {
  /** The Workload's owner, and how many objects of its kind own it (a pod group's pods). */
  public record Owner(String kind, String name, int count, String status) {}

  private final BiFunction<String, String, Optional<Workload>> workloads;
  private final Map<String, Function<ResourceID, Optional<String>>> kinds =
      new ConcurrentHashMap<>();

  /**
   * @param workloads a Workload by namespace and name, from the informer's cache
   */
  public OwnerStatuses(BiFunction<String, String, Optional<Workload>> workloads) {
    this.workloads = workloads;
  }

  /**
   * A kind's objects by name ({@code objects}: its reconciler's cache) and its adapter's view of
   * their state.
   */
  public <T extends HasMetadata> void add(
      String kind, Function<ResourceID, Optional<T>> objects, Function<T, String> status) {
    kinds.put(kind, id -> objects.apply(id).map(status));
  }

  /**
   * The owner of the Workload {@code namespace/name}, with its state; empty when the Workload is
   * not in the cache or has no owner. A kind without a cache here (not running) gives an empty
   * status. Several owners of one kind (a pod group's pods) give the first's name, their count and
   * their states counted, e.g. {@code Running 3, Pending 1}.
   */
  public Optional<Owner> of(String namespace, String name) {
    Optional<Workload> workload = workloads.apply(namespace, name);
    List<OwnerReference> refs =
        workload.map(w -> w.getMetadata().getOwnerReferences()).orElse(List.of());
    if (refs == null || refs.isEmpty()) {
      return Optional.empty();
    }
    OwnerReference first = refs.get(0);
    Function<ResourceID, Optional<String>> reader = kinds.get(first.getKind());
    Map<String, Integer> states = new LinkedHashMap<>();
    int count = 0;
    for (OwnerReference ref : refs) {
      if (!first.getKind().equals(ref.getKind())) {
        continue;
      }
      count++;
      if (reader != null) {
        reader
            .apply(new ResourceID(ref.getName(), namespace))
            .filter(s -> !s.isEmpty())
            .ifPresent(s -> states.merge(s, 1, Integer::sum));
      }
    }
    return Optional.of(new Owner(first.getKind(), first.getName(), count, summary(states, count)));
  }

  /** One state as it is; several, each with how many are in it. */
  static String summary(Map<String, Integer> states, int owners) {
    if (states.size() == 1 && owners == 1) {
      return states.keySet().iterator().next();
    }
    StringBuilder out = new StringBuilder();
    states.forEach(
        (state, n) ->
            out.append(out.length() == 0 ? "" : ", ").append(state).append(' ').append(n));
    return out.toString();
  }

  /**
   * The type of the condition that holds ({@code status: True}) and changed last, from a kind's
   * conditions as the API gives them (a list of maps); one without a time counts as the oldest, and
   * the later in the list wins a tie. Empty when none holds.
   */
  public static Optional<String> latestHolding(List<Map<String, Object>> conditions) {
    if (conditions == null) {
      return Optional.empty();
    }
    String type = null;
    Instant at = Instant.MIN;
    for (Map<String, Object> c : conditions) {
      if (!"True".equals(String.valueOf(c.get("status"))) || c.get("type") == null) {
        continue;
      }
      Instant changed = time(c.get("lastTransitionTime"));
      if (!changed.isBefore(at)) {
        type = c.get("type").toString();
        at = changed;
      }
    }
    return Optional.ofNullable(type);
  }

  private static Instant time(Object value) {
    if (value == null) {
      return Instant.MIN;
    }
    try {
      return Instant.parse(value.toString());
    } catch (DateTimeParseException e) {
      return Instant.MIN;
    }
  }
}
