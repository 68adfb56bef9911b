package dev.berth.engine.checks;

import java.util.Objects;

/** A workload's entry for one check: its state and the controller's message. */
public record CheckStatus(String name, CheckState state, String message) {
  public CheckStatus {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(state, "state");
    message = message == null ? "" : message;
  }
}
