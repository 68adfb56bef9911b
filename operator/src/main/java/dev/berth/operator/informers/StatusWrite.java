package dev.berth.operator.informers;

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
   * The operator's: {@link StatusPut#replace}, the object written kept in {@code versions} at once
   * (on the writer's thread), so that the watches hearing the write find it held and do not decode
   * it again.
   */
  static StatusWrite lean(KubernetesClient client, SharedVersions versions) {
    return copy -> versions.intern(StatusPut.replace(client, copy));
  }

  /** fabric8's {@code updateStatus}, its reply decoded into a new object. */
  static StatusWrite decoded(KubernetesClient client) {
    return copy -> client.resource(copy).updateStatus();
  }
}
