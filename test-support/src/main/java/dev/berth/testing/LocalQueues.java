package dev.berth.testing;

import dev.berth.api.v1beta1.FairSharing;
import dev.berth.api.v1beta1.LocalQueue;
import dev.berth.api.v1beta1.LocalQueueSpec;
import dev.berth.api.v1beta1.StopPolicy;
import io.fabric8.kubernetes.api.model.Quantity;

/** A LocalQueue: {@code LocalQueues.named("training").in("team-llm").clusterQueue("team-llm")}. */
public final class LocalQueues {
  private final LocalQueue lq = new LocalQueue();

  private LocalQueues(String name) {
    lq.getMetadata().setName(name);
    lq.setSpec(new LocalQueueSpec());
  }

  public static LocalQueues named(String name) {
    return new LocalQueues(name);
  }

  public LocalQueues in(String namespace) {
    lq.getMetadata().setNamespace(namespace);
    return this;
  }

  public LocalQueues clusterQueue(String clusterQueue) {
    lq.getSpec().clusterQueue = clusterQueue;
    return this;
  }

  public LocalQueues stopPolicy(StopPolicy policy) {
    lq.getSpec().stopPolicy = policy;
    return this;
  }

  public LocalQueues fairSharingWeight(String weight) {
    lq.getSpec().fairSharing = new FairSharing();
    lq.getSpec().fairSharing.weight = new Quantity(weight);
    return this;
  }

  public LocalQueue build() {
    return lq;
  }
}
