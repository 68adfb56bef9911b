package dev.berth.engine.model;

import java.util.List;
import java.util.function.Supplier;

/**
 * Why a workload is pending: a reason and a message with numbers. The message is formatted only
 * when read, so that a cycle that rejects many workloads allocates no strings.
 */
public final class Explanation {
  private final PendingReason reason;
  private final List<? extends Object> parts;
  private final Supplier<String> lazy;
  private String message;

  private Explanation(PendingReason reason, List<? extends Object> parts, Supplier<String> lazy, String message) {
    this.reason = reason;
    this.parts = parts;
    this.lazy = lazy;
    this.message = message;
  }

  public static Explanation of(PendingReason reason, String message) {
    return new Explanation(reason, null, null, message);
  }

  /** An explanation whose message is the parts' toString joined with "; ". */
  public static Explanation ofParts(PendingReason reason, List<? extends Object> parts) {
    return new Explanation(reason, parts, null, null);
  }

  public static Explanation lazy(PendingReason reason, Supplier<String> message) {
    return new Explanation(reason, null, message, null);
  }

  public PendingReason reason() {
    return reason;
  }

  public String message() {
    if (message == null) {
      if (lazy != null) {
        message = lazy.get();
      } else {
        StringBuilder sb = new StringBuilder();
        for (Object p : parts) {
          if (sb.length() > 0) {
            sb.append("; ");
          }
          sb.append(p);
        }
        message = sb.toString();
      }
    }
    return message;
  }

  @Override
  public String toString() {
    return reason + ": " + message();
  }
}
