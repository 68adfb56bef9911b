package dev.berth.operator.kube;

import io.fabric8.kubernetes.client.KubernetesClientException;

/**
 * What a failed request means for its caller, by name instead of by HTTP code. fabric8 reports a
 * refusal as a {@link KubernetesClientException} carrying the API server's code (and its Status
 * when the reply had one), and a request that got no reply at all (a timeout, a connection reset)
 * with a code of 0 or less; these predicates are the one place that reads those codes.
 */
public final class ApiErrors {
  private ApiErrors() {}

  /**
   * 409: the write carried a resourceVersion the object has moved past (or, for a create, the
   * object exists already, see {@link #alreadyExists}). A newer version decides.
   */
  public static boolean conflict(KubernetesClientException e) {
    return e.getCode() == 409;
  }

  /** 404: the object (or its namespace) is not there any more. */
  public static boolean gone(KubernetesClientException e) {
    return e.getCode() == 404;
  }

  /**
   * 409 or 404: the object changed or went since it was read, so what was about to be written is
   * decided again from its newer version (or not at all).
   */
  public static boolean conflictOrGone(KubernetesClientException e) {
    return conflict(e) || gone(e);
  }

  /** A create answered 409 with reason AlreadyExists (not a Conflict): the object is there. */
  public static boolean alreadyExists(KubernetesClientException e) {
    return conflict(e)
        && e.getStatus() != null
        && "AlreadyExists".equals(e.getStatus().getReason());
  }

  /** 429: the API server (its priority and fairness, or a webhook) asks to come back later. */
  public static boolean throttled(KubernetesClientException e) {
    return e.getCode() == 429;
  }

  /**
   * 400 or 422: the API server or a webhook refused what was sent (a bad request, a field its
   * validation rejects); sending it again cannot help.
   */
  public static boolean invalid(KubernetesClientException e) {
    return e.getCode() == 400 || e.getCode() == 422;
  }

  /**
   * A failed write that may still have been applied: no reply at all (a timeout, a connection
   * reset, code 0 or less from fabric8) or a 5xx, which kube-apiserver and the proxies in front of
   * it can send after the write reached etcd (a 504 from a request timeout, a 500 from a failure
   * while encoding the reply). Such a write is read back, never taken for refused: the writers'
   * client does not re-send it (fabric8's retry is off for them), since a re-send at the same
   * resourceVersion answers 409 for a write that was applied.
   */
  public static boolean outcomeUnknown(KubernetesClientException e) {
    return e.getCode() <= 0 || e.getCode() >= 500;
  }
}
