package dev.berth.operator.admission;

import dev.berth.api.v1beta1.Condition;
import dev.berth.api.v1beta1.Workload;
import dev.berth.api.v1beta1.WorkloadStatus;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** Reading and setting conditions the Kubernetes way: the transition time moves on change only. */
public final class StatusConditions {
  public static final String QUOTA_RESERVED = "QuotaReserved";
  public static final String ADMITTED = "Admitted";
  public static final String EVICTED = "Evicted";
  public static final String PREEMPTED = "Preempted";
  public static final String REQUEUED = "Requeued";
  public static final String FINISHED = "Finished";

  /** waitForPodsReady: every pod the workload was admitted with is ready or has succeeded. */
  public static final String PODS_READY = "PodsReady";

  /**
   * False when, at admission, some podSet's pods fit no node of the flavor they were given (their
   * nodeSelector, affinity or tolerations leave none): quota alone admitted them, kube-scheduler
   * will not place them. Absent otherwise.
   */
  public static final String SCHEDULABLE = "Schedulable";

  /** The reason of {@link #SCHEDULABLE} False. */
  public static final String NO_MATCHING_NODE = "NoMatchingNode";

  /**
   * True while the workload holds quota it was admitted to on idle capacity: a budget of its
   * LocalQueue was spent (Budget whenExhausted RunOnIdleCapacity), so it is the first workload any
   * preemptor takes. Reason {@code BudgetExhausted}; absent otherwise.
   */
  public static final String ON_IDLE_CAPACITY = "OnIdleCapacity";

  /** metav1.Condition's reason pattern, as the generated CRDs hold it. */
  private static final java.util.regex.Pattern REASON =
      java.util.regex.Pattern.compile("^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$");

  private StatusConditions() {}

  public static Optional<Condition> find(List<Condition> conditions, String type) {
    if (conditions == null) {
      return Optional.empty();
    }
    // A loop, not a stream: called for every pending workload several times a second.
    for (Condition c : conditions) {
      if (type.equals(c.type)) {
        return Optional.of(c);
      }
    }
    return Optional.empty();
  }

  public static boolean isTrue(Workload workload, String type) {
    return workload.getStatus() != null
        && find(workload.getStatus().conditions, type).map(Condition::isTrue).orElse(false);
  }

  public static boolean isFinished(Workload workload) {
    return isTrue(workload, FINISHED);
  }

  public static boolean hasQuotaReserved(Workload workload) {
    return isTrue(workload, QUOTA_RESERVED)
        && workload.getStatus().admission != null
        && workload.getStatus().admission.clusterQueue != null;
  }

  /**
   * Sets a condition on the status; returns whether anything changed, so that callers write only
   * when it did.
   */
  public static boolean set(
      WorkloadStatus status,
      String type,
      boolean value,
      String reason,
      String message,
      Instant now) {
    return set(
        status.conditions == null ? (status.conditions = new ArrayList<>()) : status.conditions,
        type,
        value,
        reason,
        message,
        now);
  }

  public static boolean set(
      List<Condition> conditions,
      String type,
      boolean value,
      String reason,
      String message,
      Instant now) {
    String wanted = value ? "True" : "False";
    // metav1.Condition requires both (the CRD refuses a write without them), and a CamelCase
    // reason: a wrong one fails here, in the unit tests, rather than as a refused status write.
    reason = reason == null || reason.isEmpty() ? type : reason;
    if (!REASON.matcher(reason).matches()) {
      throw new IllegalArgumentException(
          "condition "
              + type
              + ": reason \""
              + reason
              + "\" is not CamelCase (metav1.Condition: "
              + REASON.pattern()
              + ")");
    }
    message = message == null ? "" : message;
    Optional<Condition> existing = find(conditions, type);
    if (existing.isPresent()) {
      Condition c = existing.get();
      boolean same =
          wanted.equals(c.status)
              && java.util.Objects.equals(reason, c.reason)
              && java.util.Objects.equals(message, c.message);
      if (same) {
        return false;
      }
      if (!wanted.equals(c.status)) {
        c.lastTransitionTime = now.toString();
      }
      c.status = wanted;
      c.reason = reason;
      c.message = message;
      return true;
    }
    Condition c = new Condition(type, wanted, reason, message);
    c.lastTransitionTime = now.toString();
    conditions.add(c);
    return true;
  }

  public static void remove(WorkloadStatus status, String type) {
    if (status.conditions != null) {
      status.conditions.removeIf(c -> type.equals(c.type));
    }
  }
}
