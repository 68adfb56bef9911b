package dev.berth.api.v1beta1;

import dev.berth.api.crd.DateTime;
import dev.berth.api.crd.Items;
import dev.berth.api.crd.MaxLength;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.Map;

/**
 * A LocalQueue's decayed recent usage for admission fair sharing, written by the operator every
 * sampling interval and read back at start-up, so the order survives a restart.
 */
public class AdmissionFairSharingStatus {
  /** The decayed usage of the LocalQueue's admitted workloads, by resource. */
  @Items(max = 64)
  public Map<String, Quantity> consumedResources;

  /** When consumedResources was sampled. */
  @DateTime
  @MaxLength(64)
  public String lastUpdate;
}
