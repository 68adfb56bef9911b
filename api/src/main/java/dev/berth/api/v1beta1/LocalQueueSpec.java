package dev.berth.api.v1beta1;

import dev.berth.api.crd.MaxLength;
import dev.berth.api.crd.Rule;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;

/** The ClusterQueue this queue submits to, fixed for its lifetime. */
public class LocalQueueSpec {
  @Required
  @Pattern(Berth.DNS_SUBDOMAIN)
  @Rule(value = "self == oldSelf", message = "clusterQueue is immutable")
  @MaxLength(253)
  public String clusterQueue;

  public StopPolicy stopPolicy;

  public FairSharing fairSharing;

  public LocalQueueSpec() {}

  public LocalQueueSpec(String clusterQueue) {
    this.clusterQueue = clusterQueue;
  }
}
