package dev.berth.operator;

import java.util.Map;

/**
 * How one Berth process runs, read from environment variables (the chart sets them) so that the
 * same jar runs in a Pod, on a laptop against a kubeconfig, and in local mode.
 */
public record OperatorConfig(
    String namespace,
    boolean leaderElection,
    String leaseName,
    int metricsPort,
    boolean webhooksEnabled,
    int webhookPort,
    String operatorIdentity,
    boolean exitOnLostLease,
    boolean fairSharing,
    WaitForPodsReady waitForPodsReady) {

  /** With waitForPodsReady off and Kueue's default requeuing backoff. */
  public OperatorConfig(
      String namespace,
      boolean leaderElection,
      String leaseName,
      int metricsPort,
      boolean webhooksEnabled,
      int webhookPort,
      String operatorIdentity,
      boolean exitOnLostLease,
      boolean fairSharing) {
    this(
        namespace,
        leaderElection,
        leaseName,
        metricsPort,
        webhooksEnabled,
        webhookPort,
        operatorIdentity,
        exitOnLostLease,
        fairSharing,
        WaitForPodsReady.DEFAULT);
  }

  public OperatorConfig {
    waitForPodsReady = waitForPodsReady == null ? WaitForPodsReady.DEFAULT : waitForPodsReady;
  }

  /** The same process settings with other waitForPodsReady settings. */
  public OperatorConfig with(WaitForPodsReady settings) {
    return new OperatorConfig(
        namespace,
        leaderElection,
        leaseName,
        metricsPort,
        webhooksEnabled,
        webhookPort,
        operatorIdentity,
        exitOnLostLease,
        fairSharing,
        settings);
  }

  public static OperatorConfig fromEnvironment() {
    return from(System.getenv());
  }

  static OperatorConfig from(Map<String, String> env) {
    String namespace = env.getOrDefault("BERTH_NAMESPACE", "berth-system");
    return new OperatorConfig(
        namespace,
        Boolean.parseBoolean(env.getOrDefault("BERTH_LEADER_ELECTION", "true")),
        env.getOrDefault("BERTH_LEASE_NAME", "berth-leader"),
        Integer.parseInt(env.getOrDefault("BERTH_METRICS_PORT", "8080")),
        Boolean.parseBoolean(env.getOrDefault("BERTH_WEBHOOKS_ENABLED", "true")),
        Integer.parseInt(env.getOrDefault("BERTH_WEBHOOK_PORT", "9443")),
        env.getOrDefault(
            "BERTH_OPERATOR_IDENTITY", "system:serviceaccount:" + namespace + ":berth"),
        // A replica that lost the Lease must stop deciding at once; exiting is the sure way.
        Boolean.parseBoolean(env.getOrDefault("BERTH_EXIT_ON_LOST_LEASE", "true")),
        // Order a cohort's entries by the share their queue would have after admission.
        Boolean.parseBoolean(env.getOrDefault("BERTH_FAIR_SHARING", "false")),
        WaitForPodsReady.from(env));
  }
}
