package dev.berth.operator;

import dev.berth.engine.AdmissionEngine;
import dev.berth.engine.ClassicalPreemption;
import dev.berth.engine.FairSharingOrdering;
import dev.berth.operator.admission.AdmissionLoop;
import dev.berth.operator.admission.Bootstrap;
import dev.berth.operator.admission.ClusterState;
import dev.berth.operator.admission.DecisionWriter;
import dev.berth.operator.events.EventRecorder;
import dev.berth.operator.job.JobAdapter;
import dev.berth.operator.job.PriorityResolver;
import dev.berth.operator.job.WorkloadLifecycle;
import dev.berth.operator.metrics.BerthMetrics;
import dev.berth.operator.metrics.MetricsServer;
import dev.berth.operator.metrics.TopologyMetrics;
import dev.berth.operator.reconciler.ClusterQueueReconciler;
import dev.berth.operator.reconciler.CohortReconciler;
import dev.berth.operator.reconciler.FlavorCache;
import dev.berth.operator.jobset.JobSetAdapter;
import dev.berth.operator.reconciler.JobReconciler;
import dev.berth.operator.reconciler.JobSetReconciler;
import dev.berth.operator.reconciler.LocalQueueReconciler;
import dev.berth.operator.reconciler.NamespaceReconciler;
import dev.berth.operator.reconciler.NodeReconciler;
import dev.berth.operator.reconciler.PodReconciler;
import dev.berth.operator.reconciler.ResourceFlavorReconciler;
import dev.berth.operator.reconciler.TopologyReconciler;
import dev.berth.operator.topology.TopologyUngater;
import dev.berth.operator.reconciler.SpecCheck;
import dev.berth.operator.reconciler.WorkloadPriorityClassReconciler;
import dev.berth.operator.reconciler.WorkloadReconciler;
import dev.berth.operator.status.StatusPublisher;
import dev.berth.webhook.WebhookRuntime;
import dev.berth.webhook.WebhookSettings;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderCallbacks;
import io.javaoperatorsdk.operator.Operator;
import io.javaoperatorsdk.operator.api.config.LeaderElectionConfiguration;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.time.Clock;
import java.util.concurrent.CountDownLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The operator process: reconcilers feeding the admission loop, the loop on the leader, metrics
 * and probes. Connects with the usual kubeconfig, or in-cluster configuration.
 */
public final class BerthOperator implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(BerthOperator.class);

  private final Operator operator;
  private final AdmissionLoop loop;
  private final MetricsServer metrics;
  private final PrometheusMeterRegistry registry;
  private final WebhookRuntime webhooks;
  private final IntegrationWatch jobSetWatch;
  private volatile boolean started;
  private volatile boolean closing;

  private BerthOperator(KubernetesClient client, OperatorConfig config, Runnable onNewIntegration)
      throws IOException {
    Clock clock = Clock.systemUTC();
    registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    ClusterState state =
        new ClusterState(
            config.fairSharing()
                ? new AdmissionEngine(new FairSharingOrdering(), new ClassicalPreemption())
                : new AdmissionEngine());
    EventRecorder events = new EventRecorder(client);
    loop =
        new AdmissionLoop(
            state.engine(), state, new Bootstrap(client), new DecisionWriter(client, events, clock));
    loop.onCycle(new StatusPublisher(client, state, clock));
    loop.onCycle(new BerthMetrics(registry, state));
    loop.onCycle(new TopologyMetrics(registry, state.engine()));
    PriorityResolver priorities = new PriorityResolver(client);

    operator =
        new Operator(
            o -> {
              o.withKubernetesClient(client).withCloseClientOnStop(false);
              if (config.leaderElection()) {
                o.withLeaderElectionConfiguration(
                    new LeaderElectionConfiguration(
                        config.leaseName(),
                        config.namespace(),
                        LeaderElectionConfiguration.LEASE_DURATION_DEFAULT_VALUE,
                        LeaderElectionConfiguration.RENEW_DEADLINE_DEFAULT_VALUE,
                        LeaderElectionConfiguration.RETRY_PERIOD_DEFAULT_VALUE,
                        null,
                        new LeaderCallbacks(() -> {}, () -> onLeaseEnded(config), id -> {}),
                        // Not JOSDK's exit: it calls System.exit from whatever thread ends the
                        // Lease, also from the shutdown hook on SIGTERM, where System.exit
                        // blocks for ever and the Pod waits for SIGKILL (onLeaseEnded instead).
                        false));
              }
            });
    SpecCheck check = new SpecCheck(events);
    operator.register(new ResourceFlavorReconciler(loop, check));
    operator.register(new CohortReconciler(loop, check));
    operator.register(new ClusterQueueReconciler(loop, check));
    operator.register(new LocalQueueReconciler(loop, check));
    operator.register(new NamespaceReconciler(loop));
    operator.register(new WorkloadPriorityClassReconciler(priorities));
    operator.register(new WorkloadReconciler(loop, check));
    // Topology-aware placement: node capacity, pods bound to nodes, and the gates of placed pods.
    operator.register(new TopologyReconciler(loop));
    operator.register(new NodeReconciler(loop));
    operator.register(new PodReconciler(loop, new TopologyUngater(state::latestWorkload)));
    FlavorCache flavors = new FlavorCache(state);
    operator.register(
        new JobReconciler(new WorkloadLifecycle<>(new JobAdapter(), priorities, flavors, events, clock)));
    // The JobSet integration switches itself on when the JobSet CRD is installed.
    if (client.apiextensions().v1().customResourceDefinitions().withName(JOBSET_CRD).get() != null) {
      operator.register(
          new JobSetReconciler(
              new WorkloadLifecycle<>(new JobSetAdapter(), priorities, flavors, events, clock)));
      log.info("JobSet integration on: {} is installed", JOBSET_CRD);
      jobSetWatch = null;
    } else {
      jobSetWatch = new IntegrationWatch(client, JOBSET_CRD, onNewIntegration);
    }

    // Every replica serves the webhooks, leader or not; only the leader admits.
    webhooks =
        config.webhooksEnabled()
            ? new WebhookRuntime(WebhookSettings.fromEnvironment(System.getenv()), client)
            : null;
    metrics = new MetricsServer(config.metricsPort(), registry, () -> true, () -> started);
  }

  static final String JOBSET_CRD = "jobsets.jobset.x-k8s.io";

  /**
   * The Lease ended: lost to another replica (exit, so that only one ever decides, unless
   * BERTH_EXIT_ON_LOST_LEASE is false), or released because this process is stopping.
   */
  private void onLeaseEnded(OperatorConfig config) {
    if (closing) {
      return;
    }
    if (!config.exitOnLostLease()) {
      log.warn("lost the Lease {}; configured not to exit", config.leaseName());
      return;
    }
    log.error("lost the Lease {}; exiting so that only the new leader admits", config.leaseName());
    // From a thread of its own: the shutdown hooks it runs stop the elector that called us.
    new Thread(() -> System.exit(1), "berth-lost-lease").start();
  }

  /** Starts everything; returns once the informers have synced. */
  public static BerthOperator start(KubernetesClient client, OperatorConfig config) throws IOException {
    return start(client, config, () -> log.warn("restart Berth to switch the new integration on"));
  }

  /**
   * As {@link #start(KubernetesClient, OperatorConfig)}; {@code onNewIntegration} runs when the
   * JobSet CRD appears after start (the process exits there, so that it restarts with it).
   */
  public static BerthOperator start(
      KubernetesClient client, OperatorConfig config, Runnable onNewIntegration) throws IOException {
    BerthOperator berth = new BerthOperator(client, config, onNewIntegration);
    berth.metrics.start();
    if (berth.webhooks != null) {
      log.info("webhooks served on :{}", berth.webhooks.start());
    }
    berth.loop.start();
    berth.operator.start();
    berth.started = true;
    log.info("berth operator started; metrics on :{}", berth.metrics.port());
    return berth;
  }

  public int metricsPort() {
    return metrics.port();
  }

  public PrometheusMeterRegistry registry() {
    return registry;
  }

  public boolean isAdmitting() {
    return loop.isBootstrapped();
  }

  private static boolean clusterConfigured() {
    if (System.getenv("KUBERNETES_SERVICE_HOST") != null) {
      return true;
    }
    String kubeconfig = System.getenv("KUBECONFIG");
    java.nio.file.Path path =
        kubeconfig != null && !kubeconfig.isBlank()
            ? java.nio.file.Path.of(kubeconfig.split(java.io.File.pathSeparator)[0])
            : java.nio.file.Path.of(System.getProperty("user.home"), ".kube", "config");
    return java.nio.file.Files.exists(path);
  }

  @Override
  public void close() {
    closing = true;
    started = false;
    if (jobSetWatch != null) {
      jobSetWatch.close();
    }
    operator.stop();
    loop.close();
    if (webhooks != null) {
      webhooks.close();
    }
    metrics.close();
  }

  /**
   * Runs against the cluster of the usual kubeconfig or in-cluster configuration; with none (or
   * with {@code --local}), in local mode on an embedded API server.
   */
  public static void main(String[] args) throws Exception {
    if (java.util.Arrays.asList(args).contains("--local") || !clusterConfigured()) {
      dev.berth.operator.local.LocalMode.run(args);
      return;
    }
    OperatorConfig config = OperatorConfig.fromEnvironment();
    KubernetesClient client =
        new KubernetesClientBuilder().withConfig(ClusterCredentials.load()).build();
    BerthOperator berth = start(client, config, () -> System.exit(0));
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  berth.close();
                  client.close();
                  stopped.countDown();
                },
                "berth-shutdown"));
    stopped.await();
  }
}
