package dev.berth.webhook.mutation;

import dev.berth.api.v1beta1.LocalQueue;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;

/**
 * LocalQueues from a fabric8 informer. Until the first list completes it answers "no": a Job
 * created in that window is not given a default queue, which is what happens without a default
 * queue anyway, and never a reason to block the Job.
 */
public final class InformerLocalQueueLookup implements LocalQueueLookup, AutoCloseable {
  private final SharedIndexInformer<LocalQueue> informer;

  public InformerLocalQueueLookup(KubernetesClient client) {
    this.informer = client.resources(LocalQueue.class).inAnyNamespace().inform();
  }

  @Override
  public boolean exists(String namespace, String name) {
    return informer.getStore().getByKey(namespace + "/" + name) != null;
  }

  public boolean hasSynced() {
    return informer.hasSynced();
  }

  @Override
  public void close() {
    informer.close();
  }
}
