package dev.berth.operator.capacity;

import dev.berth.api.v1beta1.FlavorDeviceSelector;
import dev.berth.api.v1beta1.ResourceFlavor;
import dev.berth.api.v1beta1.ResourceFlavorStatus;
import dev.berth.api.v1beta1.Workload;
import dev.berth.engine.capacity.FlavorCapacity;
import dev.berth.engine.capacity.FlavorCapacityCalculator;
import dev.berth.operator.admission.AdmissionLoop;
import dev.berth.operator.admission.ClusterView;
import dev.berth.operator.admission.StatusConditions;
import dev.berth.operator.admission.WorkloadPhase;
import dev.berth.operator.events.EventRecorder;
import dev.berth.operator.kube.ApiErrors;
import dev.berth.operator.kube.Copies;
import dev.berth.operator.kube.ReadBack;
import dev.berth.operator.metrics.CapacityMetrics;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * After admission cycles, on the loop thread: computes every flavor's capacity, writes the
 * ResourceFlavor statuses that changed, records a Warning when a flavor becomes over-committed or
 * short of what it admitted, and refreshes the {@code berth_flavor_*} metrics. Pod churn runs many
 * cycles, so it computes at most once a second; a change inside that second is published by a cycle
 * it asks the loop for when the second is over.
 *
 * <p>A status whose only news is the figures admissions move (a resource's reserved, in use and
 * borrowing peak) is written at most once per {@link #FIGURES_EVERY} per flavor: under load they
 * change at every admission and finish, and writing them each second cost a write for every few
 * admissions (issue 20). The metrics still follow them every second; anything else (nodes,
 * allocatable, quota, a condition) is written within the second.
 */
public final class CapacityPublisher
    implements Consumer<AdmissionLoop.CycleOutcome>, AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(CapacityPublisher.class);
  private static final long INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(1);

  /** How often a flavor's status is written when only admission-driven figures changed. */
  static final Duration FIGURES_EVERY = Duration.ofSeconds(10);

  /** Flavor name to clock millis of its last status write. */
  private final Map<String, Long> writtenAt = new HashMap<>();

  /** A cycle is asked for at this clock millis, for figures held back (0: none). */
  private long figuresWakeAt;

  private final KubernetesClient client;
  private final ClusterView state;
  private final CapacityObserver nodes;
  private final Consumer<ResourceFlavor> flavorWritten;
  private final FlavorCapacityCalculator calculator;
  private final CapacityMetrics metrics;
  private final EventRecorder events;
  private final Clock clock;
  private final Runnable wake;
  private final ScheduledExecutorService timer =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "berth-capacity-timer");
            t.setDaemon(true);
            return t;
          });
  private long refreshedAt = Long.MIN_VALUE / 2;
  private boolean wakeScheduled;

  /**
   * @param nodes the nodes and running pods, as the loop observed them
   * @param flavorWritten takes a written ResourceFlavor into the loop's state (on the loop thread)
   * @param wake asks the admission loop for a cycle (its {@code poke}), for a refresh deferred by
   *     the once-a-second limit
   */
  public CapacityPublisher(
      KubernetesClient client,
      ClusterView state,
      CapacityObserver nodes,
      Consumer<ResourceFlavor> flavorWritten,
      CapacitySettings settings,
      CapacityMetrics metrics,
      EventRecorder events,
      Clock clock,
      Runnable wake) {
    this.client = client;
    this.state = state;
    this.nodes = nodes;
    this.flavorWritten = flavorWritten;
    this.calculator = new FlavorCapacityCalculator(settings.excludedTaintKeys());
    this.metrics = metrics;
    this.events = events;
    this.clock = clock;
    this.wake = wake;
  }

  @Override
  public void accept(AdmissionLoop.CycleOutcome outcome) {
    long now = System.nanoTime();
    long due = refreshedAt + INTERVAL_NANOS;
    if (now < due) {
      if (!wakeScheduled) {
        wakeScheduled = true;
        timer.schedule(wake, due - now, TimeUnit.NANOSECONDS);
      }
      return;
    }
    wakeScheduled = false;
    refreshedAt = now;
    refresh();
  }

  /** Computes and publishes every flavor now. */
  public void refresh() {
    QuotaCommitments quota = QuotaCommitments.of(state);
    Map<String, List<FlavorDeviceSelector>> selectors = new HashMap<>();
    for (ResourceFlavor flavor : state.flavors()) {
      if (CapacityTranslator.hasDeviceSelectors(flavor)) {
        selectors.put(flavor.getMetadata().getName(), flavor.getSpec().deviceSelectors);
      }
    }
    nodes.deviceSelectors(selectors);
    List<FlavorCapacity> all = new ArrayList<>();
    for (ResourceFlavor flavor : List.copyOf(state.flavors())) {
      FlavorCapacity capacity =
          calculator.compute(
              CapacityTranslator.flavor(flavor),
              quota.of(flavor.getMetadata().getName()),
              nodes.inventory());
      all.add(capacity);
      publish(flavor, capacity);
    }
    metrics.replaceAll(all);
  }

  private void publish(ResourceFlavor flavor, FlavorCapacity capacity) {
    if (flavor.getMetadata().getDeletionTimestamp() != null) {
      return;
    }
    ResourceFlavorStatus previous = flavor.getStatus();
    List<String> atRisk = capacity.shortOfReserved().isEmpty() ? List.of() : atRisk(capacity);
    ResourceFlavorStatus status =
        FlavorStatusBuilder.build(
            capacity, previous, atRisk, flavor.getMetadata().getGeneration(), clock.instant());
    if (Objects.equals(json(previous), json(status))) {
      return;
    }
    String name = flavor.getMetadata().getName();
    long now = clock.millis();
    Long last = writtenAt.get(name);
    if (last != null
        && now < last + FIGURES_EVERY.toMillis()
        && Objects.equals(json(withoutFigures(previous)), json(withoutFigures(status)))) {
      wakeFor(last + FIGURES_EVERY.toMillis(), now);
      return;
    }
    ResourceFlavor copy = Copies.deep(flavor);
    copy.setStatus(status);
    if (write(copy)) {
      writtenAt.put(name, now);
      warnOnTransition(copy, previous, status, FlavorStatusBuilder.OVER_COMMITTED, "OverCommitted");
      warnOnTransition(
          copy, previous, status, FlavorStatusBuilder.CAPACITY_SHORTFALL, "CapacityShortfall");
    }
  }

  /** The status without the figures admissions move, to tell whether anything else changed. */
  static ResourceFlavorStatus withoutFigures(ResourceFlavorStatus status) {
    if (status == null || status.resources == null) {
      return status;
    }
    ResourceFlavorStatus copy = Copies.deep(status);
    for (var r : copy.resources) {
      r.reserved = null;
      r.inUse = null;
      r.borrowingPeak = null;
    }
    return copy;
  }

  /** Asks the loop for a cycle at {@code at} (clock millis) unless an earlier one is asked. */
  private void wakeFor(long at, long now) {
    if (figuresWakeAt > now && figuresWakeAt <= at) {
      return;
    }
    figuresWakeAt = at;
    try {
      // A little after the bound, so that the cycle it brings finds the figures due.
      timer.schedule(wake, at - now + 50, TimeUnit.MILLISECONDS);
    } catch (java.util.concurrent.RejectedExecutionException closed) {
      // Stopping.
    }
  }

  /** Admitted, unfinished workloads holding a resource of the flavor that is short. */
  private List<String> atRisk(FlavorCapacity capacity) {
    Set<String> shortResources = new TreeSet<>();
    capacity.shortOfReserved().forEach(r -> shortResources.add(r.resource()));
    Set<String> out = new TreeSet<>();
    // Only the engine's quota holders can be at risk: reading every Workload known (finished ones
    // included, 15,000 on the benchmark) once a second was 4 % of the operator's CPU there.
    for (String uid : state.quotaHolderUids()) {
      Workload wl = state.latestWorkload(uid).orElse(null);
      if (wl == null || state.phase(uid).flatMap(WorkloadPhase::reservation).isEmpty()) {
        continue; // not holding quota (finished, or released)
      }
      for (var ps : wl.getStatus().admission.podSetAssignments) {
        if (ps.flavors != null
            && ps.flavors.entrySet().stream()
                .anyMatch(
                    e ->
                        e.getValue().equals(capacity.flavor())
                            && shortResources.contains(e.getKey()))) {
          out.add(wl.getMetadata().getNamespace() + "/" + wl.getMetadata().getName());
        }
      }
    }
    return List.copyOf(out);
  }

  private void warnOnTransition(
      ResourceFlavor flavor,
      ResourceFlavorStatus previous,
      ResourceFlavorStatus status,
      String type,
      String reason) {
    var now = StatusConditions.find(status.conditions, type).orElseThrow();
    boolean was =
        previous != null
            && previous.conditions != null
            && StatusConditions.find(previous.conditions, type).map(c -> c.isTrue()).orElse(false);
    if (now.isTrue() && (!was || !Objects.equals(messageOf(previous, type), now.message))) {
      events.warning(flavor, reason, now.message);
    } else if (!now.isTrue() && was) {
      events.normal(flavor, reason + "Resolved", now.message);
    }
  }

  private static String messageOf(ResourceFlavorStatus status, String type) {
    return StatusConditions.find(status.conditions, type).map(c -> c.message).orElse(null);
  }

  /**
   * Writes with the resourceVersion; on a conflict, once more on the stored object. The client
   * sends each write once (the writing client, no retry by fabric8): a write with no reply or a 5xx
   * is read back ({@link ReadBack}), and taken as written when the stored flavor carries this
   * status at a newer version, so that its Events are recorded once.
   */
  private boolean write(ResourceFlavor flavor) {
    try {
      keep(send(flavor), flavor);
      return true;
    } catch (KubernetesClientException e) {
      if (ApiErrors.conflict(e)) {
        ResourceFlavor latest = client.resource(flavor).get();
        if (latest != null && latest.getMetadata().getDeletionTimestamp() == null) {
          latest.setStatus(flavor.getStatus());
          try {
            keep(send(latest), flavor);
            return true;
          } catch (KubernetesClientException again) {
            e = again;
          }
        }
      }
      log.debug(
          "status of ResourceFlavor {} not written ({})",
          flavor.getMetadata().getName(),
          e.getCode());
      return false;
    }
  }

  /** One status write of {@code flavor}, read back when its outcome is unknown. */
  private ResourceFlavor send(ResourceFlavor flavor) {
    return ReadBack.write(
        client, flavor, f -> client.resource(f).updateStatus(), stored -> shows(stored, flavor));
  }

  /** Whether {@code stored} carries the status {@code written} has. */
  static boolean shows(ResourceFlavor stored, ResourceFlavor written) {
    return Objects.equals(json(stored.getStatus()), json(written.getStatus()));
  }

  /**
   * The written version becomes the one held, so the next write carries its resourceVersion; a
   * newer spec is left to the ResourceFlavor reconciler, which validates it first.
   */
  private void keep(ResourceFlavor written, ResourceFlavor decidedOn) {
    if (Objects.equals(
        written.getMetadata().getGeneration(), decidedOn.getMetadata().getGeneration())) {
      flavorWritten.accept(written);
    }
  }

  private static String json(Object status) {
    return status == null ? "" : Serialization.asJson(status);
  }

  @Override
  public void close() {
    timer.shutdownNow();
  }
}
