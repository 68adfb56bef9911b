package dev.berth.e2e.faults;

/** What the fault proxy does to one request of an operator instead of passing it through. */
enum Fault {
  /** 409 Conflict on a write, not forwarded (another writer won the resourceVersion race). */
  CONFLICT,
  /** 429 Too Many Requests with Retry-After: 1, not forwarded (API priority and fairness). */
  TOO_MANY_REQUESTS,
  /** 500 Internal Server Error, not forwarded. */
  SERVER_ERROR,
  /**
   * A write forwarded and applied by the API server, its reply dropped with the connection (to the
   * client: a connection reset with no answer; it cannot tell whether the write happened).
   */
  TIMEOUT_AFTER_APPLY,
  /**
   * A status write or Job update forwarded and applied by the API server, then answered 500
   * InternalError instead of its reply (as kube-apiserver does when encoding the reply fails).
   */
  APPLIED_THEN_500,
  /**
   * A status write or Job update forwarded and applied by the API server, then answered 504 Timeout
   * (as kube-apiserver does when the write outlasts the request's deadline but still lands).
   */
  APPLIED_THEN_504,
  /** A watch that streams for a while and is then cut off. */
  WATCH_DROP;

  /** Forwarded to the API server (and applied there) before the client is failed. */
  boolean applies() {
    return this == TIMEOUT_AFTER_APPLY || this == APPLIED_THEN_500 || this == APPLIED_THEN_504;
  }
}
