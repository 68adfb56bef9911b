package dev.berth.engine.checks;

import java.util.List;
import java.util.Optional;

/**
 * What a ProvisioningRequest's conditions mean for the admission check that made it, as the cluster
 * autoscaler writes them: Provisioned=True is Ready; Failed=True, BookingExpired=True before the
 * workload was admitted (its pods never came to use the booking) and CapacityRevoked=True are Retry
 * while retries are left, Rejected after {@code limitCount} retries; anything else keeps the check
 * Pending with the autoscaler's word. Pure.
 */
public final class ProvisioningOutcome {
  public static final String PROVISIONED = "Provisioned";
  public static final String FAILED = "Failed";
  public static final String BOOKING_EXPIRED = "BookingExpired";
  public static final String CAPACITY_REVOKED = "CapacityRevoked";
  public static final String ACCEPTED = "Accepted";

  private ProvisioningOutcome() {}

  /** One condition of a ProvisioningRequest's status. */
  public record RequestCondition(String type, String status, String reason, String message) {
    boolean isTrue() {
      return "True".equals(status);
    }

    String says() {
      String why = message == null || message.isEmpty() ? reason : message;
      return why == null || why.isEmpty() ? type : type + ": " + why;
    }
  }

  /** The check's new state and message. */
  public record Decision(CheckState state, String message) {}

  /**
   * @param request the ProvisioningRequest's name, for the messages
   * @param conditions its status.conditions
   * @param admitted whether the workload is admitted (its pods exist or are being made)
   * @param retries how often the workload was requeued so far (status.requeueState.count)
   * @param limitCount the retries allowed (retryStrategy.backoffLimitCount)
   */
  public static Decision decide(
      String request,
      List<RequestCondition> conditions,
      boolean admitted,
      int retries,
      int limitCount) {
    Optional<RequestCondition> revoked = find(conditions, CAPACITY_REVOKED);
    if (revoked.isPresent()) {
      return retryOrReject(
          request, "its capacity was revoked (" + revoked.get().says() + ")", retries, limitCount);
    }
    Optional<RequestCondition> failed = find(conditions, FAILED);
    if (failed.isPresent()) {
      return retryOrReject(request, "failed (" + failed.get().says() + ")", retries, limitCount);
    }
    Optional<RequestCondition> expired = find(conditions, BOOKING_EXPIRED);
    if (expired.isPresent() && !admitted) {
      return retryOrReject(
          request,
          "its booking expired before the pods came (" + expired.get().says() + ")",
          retries,
          limitCount);
    }
    Optional<RequestCondition> provisioned = find(conditions, PROVISIONED);
    if (provisioned.isPresent()) {
      return new Decision(
          CheckState.Ready,
          "ProvisioningRequest " + request + " is provisioned" + suffix(provisioned.get()));
    }
    Optional<RequestCondition> accepted = find(conditions, ACCEPTED);
    return new Decision(
        CheckState.Pending,
        "ProvisioningRequest "
            + request
            + (accepted.isPresent()
                ? " accepted by the autoscaler, waiting for capacity" + suffix(accepted.get())
                : " created, waiting for the autoscaler"));
  }

  private static Decision retryOrReject(String request, String what, int retries, int limitCount) {
    if (retries >= limitCount) {
      return new Decision(
          CheckState.Rejected,
          "ProvisioningRequest "
              + request
              + " "
              + what
              + "; no retry left ("
              + retries
              + " of retryStrategy.backoffLimitCount "
              + limitCount
              + " used)");
    }
    return new Decision(
        CheckState.Retry,
        "ProvisioningRequest "
            + request
            + " "
            + what
            + "; retry "
            + (retries + 1)
            + " of "
            + limitCount);
  }

  private static Optional<RequestCondition> find(List<RequestCondition> conditions, String type) {
    return conditions.stream().filter(c -> type.equals(c.type()) && c.isTrue()).findFirst();
  }

  private static String suffix(RequestCondition c) {
    return c.message() == null || c.message().isEmpty() ? "" : ": " + c.message();
  }
}
