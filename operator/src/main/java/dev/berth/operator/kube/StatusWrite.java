package dev.berth.operator.kube;

import dev.berth.api.v1beta1.Workload;
import io.fabric8.kubernetes.client.KubernetesClient;

/**
 * How the writers put a Workload's status copy, and what they then hold as stored: the operator's
 * is {@link StatusPut} (the reply read only for its version). fabric8's own, which decodes the
 * whole reply, is what unit tests answer through a stand-in client.
 */
@FunctionalInterface
public interface StatusWrite {
  /** Writes {@code copy}'s status at its resourceVersion; the stored object. */
  Workload replace(Workload copy);

  /**
   * The operator's: {@link StatusPut#replace}, sending the copy without its spec ({@link
   * #statusOnly}), and the object written kept in {@code versions} at once (on the writer's
   * thread), so that the watches hearing the write find it held and do not decode it again.
   */
  static StatusWrite lean(KubernetesClient client, SharedVersions versions) {
    return copy -> versions.intern(StatusPut.replace(client, copy, statusOnly(copy)));
  }

  /**
   * What a Workload status write sends: its metadata (name, uid and the resourceVersion it was made
   * from) and status, no spec. The API server takes only the status from a write to the status
   * subresource and keeps the stored object's spec, before validating the object and calling the
   * validating webhooks (the chart's check a status write against the stored spec): the spec, most
   * of a GPU job's Workload with its pod templates, was encoded by the operator and decoded by the
   * API server on every admission, pending condition and usage record for nothing.
   */
  static Workload statusOnly(Workload copy) {
    Workload body = new Workload();
    body.setApiVersion(copy.getApiVersion());
    body.setKind(copy.getKind());
    body.setMetadata(copy.getMetadata());
    body.setSpec(null);
    body.setStatus(copy.getStatus());
    return body;
  }

  /** fabric8's {@code updateStatus}, its reply decoded into a new object. */
  static StatusWrite decoded(KubernetesClient client) {
    return copy -> client.resource(copy).updateStatus();
  }
}
