package dev.berth.api.v1beta1;

import io.fabric8.kubernetes.client.CustomResource;
import java.util.List;

/** Every kind of the berth.dev API, in the order an admin creates them. */
public final class BerthKinds {
  public static final List<Class<? extends CustomResource<?, ?>>> ALL =
      List.of(
          ResourceFlavor.class,
          Topology.class,
          Cohort.class,
          AdmissionCheck.class,
          ProvisioningRequestConfig.class,
          ClusterQueue.class,
          LocalQueue.class,
          WorkloadPriorityClass.class,
          Workload.class,
          UsageReport.class,
          Budget.class);

  private BerthKinds() {}
}
