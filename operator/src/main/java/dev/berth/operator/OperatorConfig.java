package dev.berth.operator;

import dev.berth.engine.checks.RequeueBackoff;
import dev.berth.operator.config.Configuration;
import dev.berth.operator.config.ConfigurationLoader;

/**
 * The settings local mode and the tests vary when they start an operator in their own process; the
 * rest of its {@link Configuration} comes from the environment's overrides, else the defaults
 * ({@link #configuration()}). A deployed operator reads its whole Configuration from its file
 * instead.
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

  /**
   * These settings over the configuration of the environment's variables (defaults where unset):
   * what {@link BerthOperator} runs with when started from this record (local mode, the tests).
   */
  public Configuration configuration() {
    Configuration d = ConfigurationLoader.fromEnvironment();
    RequeueBackoff backoff = waitForPodsReady.backoff();
    return new Configuration(
        namespace,
        new Configuration.LeaderElection(leaderElection, leaseName, exitOnLostLease),
        new Configuration.Metrics(metricsPort),
        new Configuration.Webhook(
            webhooksEnabled,
            webhookPort,
            d.webhook().threads(),
            d.webhook().certDir(),
            operatorIdentity,
            d.webhook().manageJobsWithoutQueueName()),
        d.internalCertManagement(),
        d.clientConnection(),
        new Configuration.WaitForPodsReady(
            waitForPodsReady.enable(),
            waitForPodsReady.timeout(),
            waitForPodsReady.blockAdmission(),
            waitForPodsReady.recoveryTimeout(),
            new Configuration.RequeuingStrategy(
                waitForPodsReady.timestamp().name(),
                backoff.baseSeconds(),
                backoff.maxSeconds(),
                backoff.limitCount())),
        new Configuration.FairSharing(fairSharing),
        d.integrations(),
        d.resources(),
        d.usage(),
        d.capacity(),
        d.utilization(),
        d.visibility(),
        d.admissionFairSharing());
  }
}
