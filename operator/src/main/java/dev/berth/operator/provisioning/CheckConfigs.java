package dev.berth.operator.provisioning;

import dev.berth.api.v1beta1.AdmissionCheck;
import dev.berth.api.v1beta1.Berth;
import dev.berth.api.v1beta1.ProvisioningRequestConfig;
import dev.berth.api.v1beta1.ProvisioningRequestConfigSpec;
import dev.berth.api.v1beta1.ProvisioningRequestConfigSpec.RetryStrategy;
import dev.berth.engine.checks.RequeueBackoff;
import java.util.Optional;
import java.util.function.Function;

/**
 * Which AdmissionChecks are the built-in provisioning check's, and the ProvisioningRequestConfig
 * each one names in spec.parameters, or why it cannot run. Pure.
 */
public final class CheckConfigs {
  private CheckConfigs() {}

  /** A check's configuration, or the reason it is not usable (then config is null). */
  public record Resolution(ProvisioningRequestConfigSpec config, String problem) {
    public boolean ok() {
      return config != null;
    }

    public int limitCount() {
      RetryStrategy r = config.retryStrategy;
      return r == null || r.backoffLimitCount == null
          ? RetryStrategy.DEFAULT_LIMIT_COUNT
          : r.backoffLimitCount;
    }

    /** The backoff of this check's Retry (its limit is applied by the check itself). */
    public RequeueBackoff backoff() {
      RetryStrategy r = config.retryStrategy;
      int base =
          r == null || r.backoffBaseSeconds == null
              ? RetryStrategy.DEFAULT_BASE_SECONDS
              : r.backoffBaseSeconds;
      int max =
          r == null || r.backoffMaxSeconds == null
              ? RetryStrategy.DEFAULT_MAX_SECONDS
              : r.backoffMaxSeconds;
      return new RequeueBackoff(base, Math.max(base, max), null);
    }
  }

  public static boolean ours(AdmissionCheck ac) {
    return ac != null
        && ac.getSpec() != null
        && ProvisioningRequestConfig.CONTROLLER_NAME.equals(ac.getSpec().controllerName);
  }

  /** The name of the ProvisioningRequestConfig an AdmissionCheck of ours names, if it does. */
  public static Optional<String> configName(AdmissionCheck ac) {
    var p = ours(ac) ? ac.getSpec().parameters : null;
    return p != null
            && Berth.GROUP.equals(p.apiGroup)
            && ProvisioningRequestConfig.KIND.equals(p.kind)
        ? Optional.ofNullable(p.name)
        : Optional.empty();
  }

  public static Resolution resolve(
      AdmissionCheck ac,
      Function<String, ProvisioningRequestConfig> configs,
      boolean requestCrdInstalled) {
    String name = ac.getMetadata().getName();
    if (!requestCrdInstalled) {
      return problem(
          "the ProvisioningRequest CRD ("
              + ProvisioningRequest.CRD
              + ") is not"
              + " installed: install the cluster autoscaler's CRD (Berth switches the check on"
              + " when it is, without a restart)");
    }
    var p = ac.getSpec().parameters;
    if (p == null) {
      return problem(
          "AdmissionCheck "
              + name
              + " has no spec.parameters: it must name a "
              + ProvisioningRequestConfig.KIND
              + " (apiGroup "
              + Berth.GROUP
              + ")");
    }
    if (configName(ac).isEmpty()) {
      return problem(
          "spec.parameters of AdmissionCheck "
              + name
              + " names "
              + p.apiGroup
              + "/"
              + p.kind
              + "; "
              + ProvisioningRequestConfig.CONTROLLER_NAME
              + " takes a "
              + Berth.GROUP
              + "/"
              + ProvisioningRequestConfig.KIND);
    }
    ProvisioningRequestConfig config = configs.apply(p.name);
    if (config == null || config.getSpec() == null) {
      return problem(ProvisioningRequestConfig.KIND + " " + p.name + " does not exist");
    }
    return new Resolution(config.getSpec(), null);
  }

  private static Resolution problem(String why) {
    return new Resolution(null, why);
  }
}
