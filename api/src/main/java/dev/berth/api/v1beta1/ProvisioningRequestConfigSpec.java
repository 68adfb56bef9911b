package dev.berth.api.v1beta1;

import dev.berth.api.crd.Items;
import dev.berth.api.crd.ListType;
import dev.berth.api.crd.MaxLength;
import dev.berth.api.crd.Rule;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import java.util.List;
import java.util.Map;

/** The ProvisioningRequests the check creates for a quota-reserved workload. */
public class ProvisioningRequestConfigSpec {
  /**
   * The autoscaler's provisioning class, e.g. check-capacity.autoscaling.x-k8s.io (is there room
   * now) or best-effort-atomic-scale-up.autoscaling.x-k8s.io (scale up all nodes or none).
   */
  @Required
  @MaxLength(253)
  @Pattern(Berth.DNS_SUBDOMAIN)
  public String provisioningClassName;

  /**
   * Passed to every ProvisioningRequest's spec.parameters (e.g. ValidUntilSeconds); at most 100,
   * values of at most 255 characters, the ProvisioningRequest's own bounds (in the schema, and in
   * the validator, which names the entry).
   */
  @Items(max = 100)
  @MaxLength(255)
  public Map<String, String> parameters;

  /**
   * Only podSets requesting one of these resources are in the request; a workload none of whose
   * podSets requests one passes the check at once. Empty: every podSet.
   */
  @Items(max = 100)
  @ListType("set")
  @MaxLength(316)
  @Rule(
      value = "self.all(r, r.matches('" + Berth.RESOURCE_NAME + "'))",
      message = "managedResources must be resource names such as nvidia.com/gpu")
  public List<String> managedResources;

  /** How a Failed, expired or revoked request is retried: requeued with backoff, then rejected. */
  public RetryStrategy retryStrategy;

  /**
   * Requeues with exponential backoff (base·2^(n−1) seconds ±10 %, at most max); the workload is
   * deactivated after backoffLimitCount retries. Unset fields take Kueue's defaults.
   */
  @Rule(
      value =
          "!has(self.backoffBaseSeconds) || !has(self.backoffMaxSeconds)"
              + " || self.backoffBaseSeconds <= self.backoffMaxSeconds",
      message = "backoffBaseSeconds must not exceed backoffMaxSeconds")
  public static class RetryStrategy {
    public static final int DEFAULT_LIMIT_COUNT = 3;
    public static final int DEFAULT_BASE_SECONDS = 60;
    public static final int DEFAULT_MAX_SECONDS = 1800;

    /** Retries before the workload is rejected (deactivated); 0: the first failure rejects. */
    @Min(0)
    @Max(1000000)
    public Integer backoffLimitCount;

    /** 0 (as Kueue accepts): retry at once, the jitter aside. */
    @Min(0)
    @Max(86400)
    public Integer backoffBaseSeconds;

    @Min(0)
    @Max(86400)
    public Integer backoffMaxSeconds;

    public RetryStrategy() {}

    public RetryStrategy(Integer limitCount, Integer baseSeconds, Integer maxSeconds) {
      this.backoffLimitCount = limitCount;
      this.backoffBaseSeconds = baseSeconds;
      this.backoffMaxSeconds = maxSeconds;
    }
  }

  public ProvisioningRequestConfigSpec() {}

  public ProvisioningRequestConfigSpec(String provisioningClassName) {
    this.provisioningClassName = provisioningClassName;
  }
}
