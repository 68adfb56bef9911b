package dev.berth.operator.kube;

import io.fabric8.kubernetes.client.KubernetesClientException;

/**
 * Which failed writes may still have been applied: no reply at all (a timeout, a connection reset,
 * code 0 or less from fabric8) or a 5xx, which kube-apiserver and the proxies in front of it can
 * send after the write reached etcd (a 504 from a request timeout, a 500 from a failure while
 * encoding the reply). Such a write is read back, never taken for refused: the writers' client does
 * not re-send it (fabric8's retry is off for them), since a re-send at the same resourceVersion
 * answers 409 for a write that was applied.
 */
public final class UnknownOutcome {
  private UnknownOutcome() {}

  public static boolean of(KubernetesClientException e) {
    return e.getCode() <= 0 || e.getCode() >= 500;
  }
}
