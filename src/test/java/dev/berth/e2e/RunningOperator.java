package dev.berth.e2e;

import dev.berth.operator.BerthOperator;
import dev.berth.operator.Clients;
import dev.berth.operator.OperatorConfig;
import dev.berth.operator.WaitForPodsReady;
import dev.berth.operator.config.Configuration;
import dev.berth.operator.config.ConfigurationLoader;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;

/**
 * The operator, running in the test JVM against the shared API server, with its own client, built
 * as its main builds it (as it would be in its own Pod). One instance serves all scenario classes;
 * a restart test makes its own.
 */
public final class RunningOperator {
  private static BerthOperator shared;

  private RunningOperator() {}

  public static synchronized BerthOperator shared() {
    if (shared == null) {
      shared = withHttps(startNew());
      Runtime.getRuntime().addShutdownHook(new Thread(() -> shared.close()));
    }
    return shared;
  }

  /** Stops the shared operator (as a crash or a rollout would) and starts a fresh one. */
  public static synchronized BerthOperator restartShared(Runnable whileStopped) {
    shared();
    shared.close();
    whileStopped.run();
    shared = withHttps(startNew());
    return shared;
  }

  /** The visibility API and the dashboard on 127.0.0.1, with the test CA's certificate. */
  private static BerthOperator withHttps(BerthOperator operator) {
    try {
      operator.serveHttps("127.0.0.1", 0, TestHttps.keys(), true);
    } catch (java.io.IOException e) {
      operator.close();
      throw new IllegalStateException(e);
    }
    return operator;
  }

  public static BerthOperator startNew() {
    return startNew(TestApiServer.kubeconfigYaml(), false);
  }

  /** An operator with its own client on the given cluster, with or without leader election. */
  public static BerthOperator startNew(String kubeconfig, boolean leaderElection) {
    return startNew(kubeconfig, leaderElection, false);
  }

  /** With fair sharing on or off (BERTH_FAIR_SHARING). */
  public static BerthOperator startNew(
      String kubeconfig, boolean leaderElection, boolean fairSharing) {
    return start(kubeconfig, leaderElection, fairSharing, false);
  }

  /**
   * With leader election and BERTH_EXIT_ON_LOST_LEASE as the chart sets it (true): the process
   * would exit if it lost the Lease other than by stopping.
   */
  public static BerthOperator startExitingOnLostLease(String kubeconfig) {
    return start(kubeconfig, true, false, true);
  }

  /**
   * As {@link #startExitingOnLostLease(String)}, on a client the caller built and closes after the
   * operator, as the jar's main does.
   */
  public static BerthOperator startExitingOnLostLease(KubernetesClient client) {
    try {
      return BerthOperator.start(client, config(true, false, true));
    } catch (java.io.IOException e) {
      throw new IllegalStateException(e);
    }
  }

  private static BerthOperator start(
      String kubeconfig, boolean leaderElection, boolean fairSharing, boolean exitOnLostLease) {
    return start(kubeconfig, config(leaderElection, fairSharing, exitOnLostLease));
  }

  private static OperatorConfig config(
      boolean leaderElection, boolean fairSharing, boolean exitOnLostLease) {
    return new OperatorConfig(
        "berth-system",
        leaderElection,
        "berth-leader",
        0,
        false,
        0,
        "berth-operator",
        exitOnLostLease,
        fairSharing);
  }

  /**
   * Without leader election or webhooks, with these sections of the configuration file (as the
   * chart's ConfigMap would give them), read by the operator's own loader.
   */
  public static BerthOperator startNew(String kubeconfig, String configurationSections) {
    return startNew(kubeconfig, configurationSections, java.time.Clock.systemUTC());
  }

  /** As {@link #startNew(String, String)}, budget windows read on {@code budgetClock}. */
  public static BerthOperator startNew(
      String kubeconfig, String configurationSections, java.time.Clock budgetClock) {
    Configuration config =
        ConfigurationLoader.load(
            "apiVersion: config.berth.dev/v1beta1\nkind: Configuration\n"
                + "leaderElection: {leaderElect: false}\n"
                + "metrics: {port: 0}\n"
                + "webhook: {enable: false, operatorIdentity: berth-operator}\n"
                + configurationSections,
            java.util.Map.of());
    KubernetesClient client =
        Clients.builder().withConfig(Config.fromKubeconfig(kubeconfig)).build();
    try {
      return BerthOperator.start(client, config, () -> {}, budgetClock);
    } catch (java.io.IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Without leader election or webhooks, with these waitForPodsReady and requeuing settings. */
  public static BerthOperator startNew(String kubeconfig, WaitForPodsReady settings) {
    return start(
        kubeconfig,
        new OperatorConfig(
            "berth-system",
            false,
            "berth-leader",
            0,
            false,
            0,
            "berth-operator",
            false,
            false,
            settings));
  }

  private static BerthOperator start(String kubeconfig, OperatorConfig config) {
    // The client the operator's main builds (Clients): its decoding, watch deadlines and HTTP
    // client, so that the suite runs what a Pod runs.
    KubernetesClient client =
        Clients.builder().withConfig(Config.fromKubeconfig(kubeconfig)).build();
    try {
      return BerthOperator.start(client, config);
    } catch (java.io.IOException e) {
      throw new IllegalStateException(e);
    }
  }
}
