package dev.berth.webhook.validation;

/**
 * Whether a user may write the state of one admission check in Workloads' status: RBAC verb {@value
 * #VERB} on resource {@code admissionchecks} of group {@code berth.dev}, with the check's name as
 * resourceName. A check's controller is granted exactly its checks; holding {@code
 * workloads/status} alone writes none.
 */
@FunctionalInterface
public interface CheckStateGrants {
  String VERB = "update-state";

  /** Nobody is granted any check: every state write by a non-operator is denied. */
  CheckStateGrants NONE = (user, check) -> false;

  /**
   * @throws Unavailable when the answer cannot be had (the API server did not answer); the guard
   *     then denies, it never guesses
   */
  boolean mayWriteState(RequestUser user, String check);

  /** The authorizer could not be asked. */
  final class Unavailable extends RuntimeException {
    public Unavailable(String message, Throwable cause) {
      super(message, cause);
    }
  }
}
