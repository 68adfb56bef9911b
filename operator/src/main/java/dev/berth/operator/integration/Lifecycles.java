package dev.berth.operator.integration;

import dev.berth.operator.events.EventRecorder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import java.time.Clock;

/**
 * What every kind's {@link WorkloadLifecycle} is made of besides its adapter, so that a kind's
 * registry entry names only its adapter.
 *
 * @param podsReady whether waitForPodsReady is on (the lifecycle keeps PodsReady)
 * @param devices what a new Workload's pods hold through ResourceClaims (docs/dra.md)
 * @param owners where each kind offers its objects' state to the visibility API; null: nowhere
 */
public record Lifecycles(
    PriorityResolver priorities,
    Integration.FlavorLookup flavors,
    EventRecorder events,
    Clock clock,
    boolean podsReady,
    DeviceCharges devices,
    OwnerStatuses owners) {

  /** Without Dynamic Resource Allocation mappings. */
  public Lifecycles(
      PriorityResolver priorities,
      Integration.FlavorLookup flavors,
      EventRecorder events,
      Clock clock,
      boolean podsReady) {
    this(priorities, flavors, events, clock, podsReady, DeviceCharges.NONE);
  }

  /** Offering its kinds' objects to no visibility API. */
  public Lifecycles(
      PriorityResolver priorities,
      Integration.FlavorLookup flavors,
      EventRecorder events,
      Clock clock,
      boolean podsReady,
      DeviceCharges devices) {
    this(priorities, flavors, events, clock, podsReady, devices, null);
  }

  /** The lifecycle of the kind {@code adapter} describes. */
  public <T extends HasMetadata> WorkloadLifecycle<T> of(Integration<T> adapter) {
    return new WorkloadLifecycle<>(adapter, priorities, flavors, events, clock, podsReady)
        .devices(devices)
        .ownerStatuses(owners);
  }
}
