package dev.berth.engine.flavor;

/** How a workload could use a flavor: it fits, it fits only by preemption, or it does not fit. */
public enum FlavorMode {
  NoFit,
  Preempt,
  Fit;

  public FlavorMode worse(FlavorMode other) {
    return ordinal() <= other.ordinal() ? this : other;
  }
}
