package dev.berth.e2e.faults;

/** What the fault proxy does to one request of an operator instead of passing it through. */
enum Fault {
  /** 409 Conflict on a write, not forwarded (another writer won the resourceVersion race). */
  CONFLICT,
  /** 429 Too Many Requests with Retry-After: 1, not forwarded (API priority and fairness). */
  TOO_MANY_REQUESTS,
  /** 500 Internal Server Error, not forwarded. */
  SERVER_ERROR,
  /** A write forwarded and applied by the API server, its reply dropped with the connection. */
  TIMEOUT_AFTER_APPLY,
  /** A watch that streams for a while and is then cut off. */
  WATCH_DROP
}
