package dev.berth.engine;

import java.util.List;

/** The first PreemptionPlanner: finds no victims, so Preempt-mode entries wait for quota. */
public final class NoPreemption implements PreemptionPlanner {
  @Override
  public List<String> victims(PreemptionContext context) {
    return List.of();
  }
}
