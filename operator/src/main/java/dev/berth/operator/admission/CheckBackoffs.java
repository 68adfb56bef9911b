package dev.berth.operator.admission;

import dev.berth.engine.checks.RequeueBackoff;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The requeuing backoff of admission checks that set their own (the provisioning check's
 * retryStrategy), by check name; a check not listed is paced by the operator's waitForPodsReady
 * backoff. Written by the check's reconciler, read on the loop thread.
 */
public final class CheckBackoffs {
  private final Map<String, RequeueBackoff> byCheck = new ConcurrentHashMap<>();

  public void set(String check, RequeueBackoff backoff) {
    byCheck.put(check, backoff);
  }

  public void remove(String check) {
    byCheck.remove(check);
  }

  /** The backoff of a Retry asked for by {@code check}. */
  public RequeueBackoff forCheck(String check, RequeueBackoff fallback) {
    return byCheck.getOrDefault(check, fallback);
  }
}
