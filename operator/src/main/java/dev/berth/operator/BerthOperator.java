package dev.berth.operator;

import dev.berth.api.v1beta1.Budget;
import dev.berth.api.v1beta1.Workload;
import dev.berth.engine.AdmissionEngine;
import dev.berth.engine.FairSharingOrdering;
import dev.berth.engine.FairSharingPreemption;
import dev.berth.engine.FairSharingStrategy;
import dev.berth.operator.admission.AdmissionLoop;
import dev.berth.operator.admission.Bootstrap;
import dev.berth.operator.admission.CheckBackoffs;
import dev.berth.operator.admission.ClusterState;
import dev.berth.operator.admission.DecisionWriter;
import dev.berth.operator.admission.WritePool;
import dev.berth.operator.admission.WriterSettings;
import dev.berth.operator.budget.BudgetBook;
import dev.berth.operator.budget.BudgetPublisher;
import dev.berth.operator.capacity.CapacityObserver;
import dev.berth.operator.capacity.CapacityPublisher;
import dev.berth.operator.capacity.CapacitySettings;
import dev.berth.operator.capacity.DeviceFeed;
import dev.berth.operator.config.Configuration;
import dev.berth.operator.events.EventRecorder;
import dev.berth.operator.informers.InformerCaches;
import dev.berth.operator.informers.InformerSync;
import dev.berth.operator.integration.DeviceCharges;
import dev.berth.operator.integration.Lifecycles;
import dev.berth.operator.integration.OwnerStatuses;
import dev.berth.operator.integration.PriorityResolver;
import dev.berth.operator.kube.ReconcileCopies;
import dev.berth.operator.kube.SharedLeanItemStore;
import dev.berth.operator.kube.SharedVersions;
import dev.berth.operator.kube.StatusWrite;
import dev.berth.operator.metrics.BerthMetrics;
import dev.berth.operator.metrics.BudgetMetrics;
import dev.berth.operator.metrics.CapacityMetrics;
import dev.berth.operator.metrics.MetricsServer;
import dev.berth.operator.metrics.TopologyMetrics;
import dev.berth.operator.metrics.UsageMetrics;
import dev.berth.operator.metrics.UtilizationMetrics;
import dev.berth.operator.metrics.WritePoolMetrics;
import dev.berth.operator.provisioning.ProvisioningAdmissionCheckReconciler;
import dev.berth.operator.provisioning.ProvisioningCheck;
import dev.berth.operator.provisioning.ProvisioningRequest;
import dev.berth.operator.provisioning.ProvisioningRequestReconciler;
import dev.berth.operator.reconciler.AdmissionCheckReconciler;
import dev.berth.operator.reconciler.BudgetReconciler;
import dev.berth.operator.reconciler.ClusterQueueReconciler;
import dev.berth.operator.reconciler.ClusterStateFlavorLookup;
import dev.berth.operator.reconciler.CohortReconciler;
import dev.berth.operator.reconciler.LocalQueueReconciler;
import dev.berth.operator.reconciler.NamespaceReconciler;
import dev.berth.operator.reconciler.NodeReconciler;
import dev.berth.operator.reconciler.PodReconciler;
import dev.berth.operator.reconciler.ReconcileRetry;
import dev.berth.operator.reconciler.ResourceFlavorReconciler;
import dev.berth.operator.reconciler.SpecCheck;
import dev.berth.operator.reconciler.TopologyReconciler;
import dev.berth.operator.reconciler.WorkloadPriorityClassReconciler;
import dev.berth.operator.reconciler.WorkloadReconciler;
import dev.berth.operator.status.PendingConditions;
import dev.berth.operator.status.StartEstimates;
import dev.berth.operator.status.StatusPublisher;
import dev.berth.operator.topology.TopologyUngater;
import dev.berth.operator.usage.ReportWriter;
import dev.berth.operator.usage.UsageEndpoint;
import dev.berth.operator.usage.UsageObserver;
import dev.berth.operator.usage.UsagePublisher;
import dev.berth.operator.usage.UsageRecorder;
import dev.berth.operator.usage.UtilizationSettings;
import dev.berth.operator.visibility.DashboardEndpoint;
import dev.berth.operator.visibility.FrontProxy;
import dev.berth.operator.visibility.HttpsSettings;
import dev.berth.operator.visibility.RecentDecisions;
import dev.berth.operator.visibility.SecureEndpoints;
import dev.berth.operator.visibility.VisibilityEndpoint;
import dev.berth.webhook.WebhookRuntime;
import dev.berth.webhook.WebhookSettings;
import dev.berth.webhook.integration.Framework;
import dev.berth.webhook.validation.BerthValidators;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.RequestConfigBuilder;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderCallbacks;
import io.javaoperatorsdk.operator.Operator;
import io.javaoperatorsdk.operator.api.config.ConfigurationServiceOverrider;
import io.javaoperatorsdk.operator.api.config.ControllerConfigurationOverrider;
import io.javaoperatorsdk.operator.api.config.LeaderElectionConfiguration;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The operator process: reconcilers feeding the admission loop, the loop on the leader, metrics and
 * probes. Connects with the usual kubeconfig, or in-cluster configuration.
 */
public final class BerthOperator implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(BerthOperator.class);

  private final Operator operator;
  private final AdmissionLoop loop;
  private final InformerCaches caches;
  private final InformerSync informerSync;
  private final MetricsServer metrics;
  private final PrometheusMeterRegistry registry;

  /** Closed with the operator: it listens to the JVM's collectors. */
  private final JvmGcMetrics gcMetrics = new JvmGcMetrics();

  private final WebhookRuntime webhooks;

  /**
   * The enabled kinds whose CRD was not installed at start, and the ProvisioningRequest controller
   * if its CRD was not: each switches on when its CRD is installed, with no restart.
   */
  private final LateIntegrations late;

  /** ResourceSlices and DeviceClasses for capacity, when a DeviceClass is mapped; else null. */
  private final DeviceFeed deviceFeed;

  private final CapacityPublisher capacity;
  private final UsageRecorder usageRecorder;
  private final BudgetPublisher budgets;
  private final VisibilityEndpoint visibility;
  private final EventRecorder events;
  private final DashboardEndpoint dashboard;
  private SecureEndpoints https;
  private volatile boolean started;

  /** close() has begun: losing the Lease now is part of stopping, not a failure. */
  private volatile boolean stopping;

  private final boolean leaderElection;

  /** This replica holds the Lease (always false without leader election). */
  private volatile boolean leading;

  /** The Lease was held and then lost while not stopping. */
  private volatile boolean leaseLost;

  private BerthOperator(
      KubernetesClient client,
      Configuration config,
      UtilizationSettings utilization,
      Runnable onNewIntegration,
      Clock budgetClock)
      throws IOException {
    Clock clock = Clock.systemUTC();
    WaitForPodsReady waitForPodsReady = WaitForPodsReady.of(config.waitForPodsReady());
    registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    // The JVM's heap and collector: a heap too small for the cluster shows as collection time
    // growing (jvm_gc_pause_seconds) long before it runs out, while admission slows for no
    // visible reason otherwise (docs/helm.md#memory).
    new JvmMemoryMetrics().bindTo(registry);
    gcMetrics.bindTo(registry);
    // One instance of each Workload version between the informers and the loop's state; the
    // client's watches hand out the instance held instead of decoding a held version again.
    SharedVersions versions = Clients.versions(client);
    // Every write of the writers and reconcilers goes out once: an applied write whose reply was
    // lost or a 5xx, re-sent by fabric8 at the same resourceVersion, came back 409 and was taken
    // for "not written" (issue 42). The writers read such an outcome back instead.
    KubernetesClient writes = writingClient(client);
    AdmissionEngine engine =
        config.fairSharing().enable()
            ? new AdmissionEngine(
                new FairSharingOrdering(),
                new FairSharingPreemption(
                    config.fairSharing().preemptionStrategies().stream()
                        .map(FairSharingStrategy::valueOf)
                        .toList()))
            : new AdmissionEngine();
    var afs = config.admissionFairSharing();
    engine.admissionFairSharing(
        new dev.berth.engine.model.AdmissionFairSharing(
            afs.usageHalfLifeTime().toMillis(),
            afs.usageSamplingInterval().toMillis(),
            afs.resourceWeights()));
    ClusterState state = new ClusterState(engine, versions).waitForPodsReady(waitForPodsReady);
    // The side ledgers outside admission: told of every observation from the bootstrap on.
    CapacityObserver nodeCapacity = new CapacityObserver(config.resources().mappings());
    UsageObserver usage = new UsageObserver();
    // Budgets: charged from the usage ledger's runs and the Workloads' own usage records.
    BudgetBook budgetBook = new BudgetBook();
    usage.onRunEnded(budgetBook::ended);
    state.register(nodeCapacity).register(usage).register(budgetBook);
    events = new EventRecorder(client);
    Gauge.builder("berth_events_pending", events, EventRecorder::pending)
        .description("Events recorded and not yet written to the API server")
        .register(registry);
    SpecCheck check = new SpecCheck(events);
    caches = new InformerCaches();
    CheckBackoffs checkBackoffs = new CheckBackoffs();
    // The loop decides; these threads write (admissions, evictions, status), in order per object.
    WriterSettings writerSettings = WriterSettings.of(config.clientConnection());
    WritePool writers = new WritePool(writerSettings, state);
    WritePoolMetrics.bind(writers, registry);
    // Workload status writes whose replies are read only for their version (StatusPut).
    StatusWrite statusWrite = StatusWrite.lean(writes, versions);
    loop =
        new AdmissionLoop(
            state.engine(),
            state,
            new Bootstrap(caches, check::accepts)
                .then(loaded -> loadBudgets(loaded, check, budgetBook, budgetClock)),
            new DecisionWriter(
                writes,
                events,
                clock,
                registry,
                waitForPodsReady,
                checkBackoffs,
                writers,
                statusWrite));
    loop.onCycle(
        new StatusPublisher(
            writes,
            state,
            state,
            clock,
            writers,
            loop::pokeAfter,
            writerSettings.queueStatusQps()));
    StartEstimates estimates = new StartEstimates(state, clock, loop::pokeAfter);
    loop.onCycle(estimates);
    PendingConditions pendingConditions =
        new PendingConditions(
            writes,
            state,
            events,
            clock,
            loop::pokeAfter,
            registry,
            estimates,
            writers,
            writerSettings.pendingQps(),
            statusWrite);
    loop.onCycle(pendingConditions);
    loop.reasonsWhen(pendingConditions::passDue);
    loop.onCycle(new BerthMetrics(registry, state, loop::pokeAfter));
    loop.onCycle(new TopologyMetrics(registry, state.engine()));
    loop.onCycle(
        new dev.berth.operator.metrics.AdmissionCheckMetrics(registry, state.checks(), clock));
    capacity =
        new CapacityPublisher(
            writes,
            state,
            nodeCapacity,
            state::flavor,
            CapacitySettings.of(config.capacity()),
            new CapacityMetrics(registry),
            events,
            clock,
            loop::poke);
    loop.onCycle(capacity);
    // DRA devices count in flavors' capacity only where a DeviceClass is mapped to quota.
    deviceFeed =
        config.resources().mappings().isEmpty() ? null : new DeviceFeed(client, loop, nodeCapacity);
    budgets =
        new BudgetPublisher(
            writes, budgetBook, usage, loop, budgetClock, new BudgetMetrics(registry));
    usageRecorder =
        new UsageRecorder(
            // A report shows the budgets charging its runs as their status has them then.
            new ReportWriter(writes, clock, budgets::charging),
            utilization,
            new UtilizationMetrics(registry),
            clock,
            config.usage().reportInterval(),
            loop::poke);
    loop.onCycle(
        new UsagePublisher(
            writes,
            state,
            usage,
            new UsageMetrics(registry, clock),
            usageRecorder,
            writers,
            statusWrite));
    loop.onCycle(budgets);
    RecentDecisions recent = new RecentDecisions(state, clock);
    loop.onCycle(recent);
    // Each pending Workload's owner and its own state, from the informers' caches when asked.
    OwnerStatuses owners =
        new OwnerStatuses((namespace, name) -> caches.get(Workload.class, namespace, name));
    visibility = new VisibilityEndpoint(client, loop, owners);
    dashboard = new DashboardEndpoint(client, loop, recent, budgets::shown, owners);
    PriorityResolver priorities = new PriorityResolver(client);

    KubernetesClient listing = listingClient(client);
    // A failed first list (a busy API server, a 429, a restart) is retried by the informer with
    // backoff instead of stopping the operator: stopping only starts a replica that lists again
    // from nothing, under the same load (a crash loop seen at 10,000 Jobs). InformerSync says when
    // every informer has listed. The same for the Operators of kinds switched on later.
    Consumer<ConfigurationServiceOverrider> settings =
        o ->
            o.withKubernetesClient(listing)
                .withResourceCloner(new ReconcileCopies(client.getKubernetesSerialization()))
                .withCloseClientOnStop(false)
                .withStopOnInformerErrorDuringStartup(false);
    operator =
        new Operator(
            o -> {
              settings.accept(o);
              Configuration.LeaderElection election = config.leaderElection();
              if (election.leaderElect()) {
                // JOSDK's own exit on a lost Lease calls System.exit from whatever thread stops
                // leading, which is the shutdown hook on SIGTERM: a deadlock. Berth decides.
                o.withLeaderElectionConfiguration(
                    new LeaderElectionConfiguration(
                        election.resourceName(),
                        config.namespace(),
                        LeaderElectionConfiguration.LEASE_DURATION_DEFAULT_VALUE,
                        LeaderElectionConfiguration.RENEW_DEADLINE_DEFAULT_VALUE,
                        LeaderElectionConfiguration.RETRY_PERIOD_DEFAULT_VALUE,
                        null,
                        new LeaderCallbacks(
                            this::startedLeading,
                            () -> lostLease(election.exitOnLostLease()),
                            leader ->
                                log.info("Lease {} held by {}", election.resourceName(), leader)),
                        false));
              }
            });
    informerSync = new InformerSync(operator::getRuntimeInfo, caches);
    operator.register(new ResourceFlavorReconciler(loop, caches, check), ReconcileRetry.only());
    operator.register(new CohortReconciler(loop, caches, check), ReconcileRetry.only());
    operator.register(new ClusterQueueReconciler(loop, caches, check), ReconcileRetry.only());
    operator.register(new LocalQueueReconciler(loop, caches, check), ReconcileRetry.only());
    operator.register(new AdmissionCheckReconciler(loop, caches, check), ReconcileRetry.only());
    operator.register(new NamespaceReconciler(loop, caches), ReconcileRetry.only());
    operator.register(new WorkloadPriorityClassReconciler(priorities), ReconcileRetry.only());
    operator.register(
        new BudgetReconciler(loop, caches, check, budgetBook, budgets, budgetClock),
        ReconcileRetry.only());
    // No periodic reconcile of Workloads (JOSDK's default: every 10 h): every change reaches the
    // engine as an event, and the timer it keeps per Workload, two after a reschedule (a cancelled
    // java.util.Timer task stays queued until its time), was 10 MB of heap at 50,000 Workloads.
    Consumer<ControllerConfigurationOverrider<Workload>> noResync =
        override -> override.withReconciliationMaxInterval(null);
    operator.register(
        new WorkloadReconciler(loop, caches, check),
        ReconcileRetry.with(SharedLeanItemStore.<Workload>primary(versions).andThen(noResync)));
    // Topology-aware placement: node capacity, pods bound to nodes, and the gates of placed pods.
    operator.register(new TopologyReconciler(loop, caches), ReconcileRetry.only());
    operator.register(new NodeReconciler(loop, caches), ReconcileRetry.only());
    operator.register(
        new PodReconciler(
            loop,
            caches,
            new TopologyUngater(
                state::latestWorkload,
                key -> caches.byIndex(Pod.class, TopologyUngater.PODS_OF_PODSET, key))),
        ReconcileRetry.only());
    ClusterStateFlavorLookup flavors = new ClusterStateFlavorLookup(state);
    // One reconciler per kind integrations.frameworks lists (the registry, Integrations); a kind
    // served by a CRD not installed yet switches on when it is (LateIntegrations).
    // waitForPodsReady:
    // each kind's lifecycle keeps its Workloads' PodsReady condition.
    Lifecycles lifecycles =
        new Lifecycles(
            priorities,
            flavors,
            events,
            clock,
            waitForPodsReady.enable(),
            new DeviceCharges(config.resources().mappings()),
            owners);
    Configuration.Integrations integrations = config.integrations();
    List<LateIntegrations.Late> waiting = new ArrayList<>();
    for (Integrations.Kind kind : Integrations.all()) {
      Framework framework = kind.framework();
      if (!integrations.enabled(framework.frameworkName())) {
        log.info(
            "{} integration off: integrations.frameworks does not list {}",
            framework.kind(),
            framework.frameworkName());
        continue;
      }
      if (kind.reconciler().isEmpty()) {
        // Before the CRD check: nothing of the operator's waits for a LeaderWorkerSet's CRD, so
        // installing it later needs no restart (its pods reach the pod integration from then on).
        log.info("{} integration on: its pods are queued by the pod integration", framework.kind());
        continue;
      }
      Optional<String> crd = framework.crd();
      Consumer<Operator> controllers =
          o ->
              o.register(
                  kind.reconciler().get().create(lifecycles, caches, versions, writes),
                  ReconcileRetry.only());
      if (crd.isPresent() && !installed(client, crd.get())) {
        waiting.add(
            new LateIntegrations.Late(framework.kind(), crd.get(), controllers, onNewIntegration));
        continue;
      }
      controllers.accept(operator);
      crd.ifPresent(name -> log.info("{} integration on: {} is installed", framework.kind(), name));
    }
    // The built-in provisioning check: its AdmissionChecks are marked Active (or say why not)
    // always; ProvisioningRequests are made only where the autoscaler's CRD is installed.
    boolean requestCrd = installed(client, ProvisioningRequest.CRD);
    ProvisioningAdmissionCheckReconciler provisioningChecks =
        new ProvisioningAdmissionCheckReconciler(checkBackoffs, requestCrd, clock);
    operator.register(provisioningChecks, ReconcileRetry.only());
    Consumer<Operator> provisioning =
        o ->
            o.register(
                new ProvisioningRequestReconciler(new ProvisioningCheck(events, flavors, clock)),
                ReconcileRetry.with(SharedLeanItemStore.primary(versions)));
    if (requestCrd) {
      provisioning.accept(operator);
    } else {
      // Its checks say Active=False until then, and are marked again when it switches on.
      waiting.add(
          new LateIntegrations.Late(
              "ProvisioningRequest",
              ProvisioningRequest.CRD,
              provisioning,
              () -> {
                provisioningChecks.requestCrdInstalled();
                onNewIntegration.run();
              }));
    }
    late = new LateIntegrations(client, waiting, () -> new Operator(settings), this::isLeading);

    // Every replica serves the webhooks, leader or not; only the leader admits.
    webhooks =
        config.webhook().enable()
            ? new WebhookRuntime(webhookSettings(config), client)
                .deviceClasses(config.resources().mappings())
            : null;
    leaderElection = config.leaderElection().leaderElect();
    metrics =
        new MetricsServer(config.metrics().port(), registry, this::isLive, this::isReady)
            .route("/usage", new UsageEndpoint(client));
  }

  /**
   * Bootstrap: the Budgets from the informer's cache, evaluated, so that spent budgets hold their
   * queues from the first cycle on, not from the first evaluation after it.
   */
  private void loadBudgets(ClusterState state, SpecCheck check, BudgetBook book, Clock clock) {
    for (Budget b : caches.list(Budget.class)) {
      if (check.accepts(b, BerthValidators.budget(b))) {
        book.upsert(b, clock.instant());
      }
    }
    budgets.evaluateNow(state);
  }

  /**
   * Live while the admission loop runs and is not stuck in one cycle, and while a Lease once held
   * is still held: a leader that lost it without exiting must be restarted.
   */
  public boolean isLive() {
    return loop.isLive() && !leaseLost;
  }

  /** Ready once started; a leader only once its loop has rebuilt the state from the API server. */
  public boolean isReady() {
    return started && isLive() && (!leading || loop.isBootstrapped());
  }

  /** The Lease is this replica's: admit, and run what switched on meanwhile. */
  private void startedLeading() {
    leading = true;
    late.startedLeading();
  }

  /**
   * The kinds (and the ProvisioningRequest controller) switched on since start because their CRD
   * was installed after it, in order; empty on a standby, which runs them once it leads.
   */
  public List<String> switchedOnAfterStart() {
    return late.switchedOn();
  }

  private static boolean installed(KubernetesClient client, String crd) {
    return client.apiextensions().v1().customResourceDefinitions().withName(crd).get() != null;
  }

  /** This replica admits: it holds the Lease, or runs without leader election. */
  public boolean isLeading() {
    return leading || !leaderElection;
  }

  private void lostLease(boolean exit) {
    boolean held = leading;
    leading = false;
    if (stopping || !held) {
      return;
    }
    leaseLost = true;
    // At once, before the exit below runs the stop: another replica may be deciding already, so
    // nothing this one still holds may be sent (the drain at stop then only applies results).
    loop.fence();
    log.error("the Lease was lost; this replica stops admitting");
    if (exit) {
      // Not from this thread, which may be one the shutdown must wait for; exit runs the hooks.
      Thread exiting = new Thread(() -> System.exit(1), "berth-lost-lease-exit");
      exiting.start();
    }
  }

  /**
   * How long an informer's list page (and every request of JOSDK's client) may take. fabric8's
   * default of 10 s is shorter than a page of 500 Workloads takes from a busy API server; the API
   * server bounds a request at 60 s itself, and client-go's reflectors set no client deadline.
   */
  static final int LISTING_REQUEST_TIMEOUT_MS = 60_000;

  /** The same connection and credentials, with the longer request deadline for the informers. */
  private static KubernetesClient listingClient(KubernetesClient client) {
    return client
        .newClient(
            new RequestConfigBuilder(client.getConfiguration().getRequestConfig())
                .withRequestTimeout(LISTING_REQUEST_TIMEOUT_MS)
                .build())
        .adapt(KubernetesClient.class);
  }

  /**
   * The same connection and credentials without fabric8's retry of 5xx, 429 and I/O failures, for
   * the writers and the workload kinds' reconcilers. fabric8 re-sends such a request up to ten
   * times; a write that the API server applied before the failure comes back 409 on the re-send (it
   * carries the resourceVersion it was made from), and the caller would take an applied write for
   * one that was not. Without the retry a write has three outcomes its caller can tell apart:
   * written, refused, or unknown (no reply or a 5xx), and the last is read back
   * (docs/reliability.md). The informers keep the retrying client: a list or watch re-sent is
   * harmless.
   */
  static KubernetesClient writingClient(KubernetesClient client) {
    return client
        .newClient(
            new RequestConfigBuilder(client.getConfiguration().getRequestConfig())
                .withRequestRetryBackoffLimit(0)
                .build())
        .adapt(KubernetesClient.class);
  }

  /** The webhook server's settings: the configuration's {@code webhook} and its certificates. */
  static WebhookSettings webhookSettings(Configuration config) {
    Configuration.Webhook webhook = config.webhook();
    Configuration.InternalCertManagement certs = config.internalCertManagement();
    return new WebhookSettings(
        webhook.port(),
        webhook.threads(),
        webhook.operatorIdentity(),
        config.namespace(),
        certs.webhookServiceName(),
        certs.webhookSecretName(),
        certs.enable() ? null : Path.of(webhook.certDir()),
        List.of(certs.validatingWebhookConfigurationName()),
        List.of(certs.mutatingWebhookConfigurationName()),
        WebhookSettings.CA_VALIDITY,
        WebhookSettings.SERVING_VALIDITY,
        WebhookSettings.ROTATION_CHECK_PERIOD,
        List.of(),
        webhook.manageJobsWithoutQueueName());
  }

  /**
   * How long the Events still waiting at stop may take. With the loop's drain (10 s) and the
   * reconcilers' stop it stays well inside the chart's 30 s termination grace period.
   */
  static final Duration EVENT_DRAIN = Duration.ofSeconds(5);

  /**
   * Starts everything with this configuration; returns once the informers have synced, or after
   * JOSDK's cache-sync timeout with some still retrying their first list (the loop waits for them,
   * see InformerSync). {@code onNewIntegration} runs after a kind (or the ProvisioningRequest
   * controller) whose CRD was installed after start has switched on (on the leader; no restart).
   */
  public static BerthOperator start(
      KubernetesClient client, Configuration config, Runnable onNewIntegration) throws IOException {
    return start(client, config, onNewIntegration, Clock.systemUTC());
  }

  /**
   * With these settings over the environment's configuration ({@link
   * OperatorConfig#configuration()}).
   */
  public static BerthOperator start(KubernetesClient client, OperatorConfig config)
      throws IOException {
    return start(client, config, () -> {});
  }

  /** As {@link #start(KubernetesClient, OperatorConfig)}, with {@code onNewIntegration}. */
  public static BerthOperator start(
      KubernetesClient client, OperatorConfig config, Runnable onNewIntegration)
      throws IOException {
    return start(client, config.configuration(), onNewIntegration);
  }

  /** With the DCGM join configured (see capacity.md). */
  public static BerthOperator start(
      KubernetesClient client, OperatorConfig config, UtilizationSettings utilization)
      throws IOException {
    return start(client, config.configuration(), utilization, () -> {}, Clock.systemUTC());
  }

  /**
   * As {@link #start(KubernetesClient, Configuration, Runnable)}, with budget windows read on
   * {@code budgetClock} instead of the system's: a test moves it to the next window.
   */
  public static BerthOperator start(
      KubernetesClient client, Configuration config, Runnable onNewIntegration, Clock budgetClock)
      throws IOException {
    return start(
        client,
        config,
        UtilizationSettings.of(config.utilization()),
        onNewIntegration,
        budgetClock);
  }

  private static BerthOperator start(
      KubernetesClient client,
      Configuration config,
      UtilizationSettings utilization,
      Runnable onNewIntegration,
      Clock budgetClock)
      throws IOException {
    ModelWarmup.warm(client);
    BerthOperator berth =
        new BerthOperator(client, config, utilization, onNewIntegration, budgetClock);
    try {
      berth.metrics.start();
      if (berth.webhooks != null) {
        log.info("webhooks served on :{}", berth.webhooks.start());
        // Bearer tokens only over TLS: the HTTPS port has the webhook's certificate (its Service).
        HttpsSettings https = HttpsSettings.of(config.visibility());
        berth.serveHttps("0.0.0.0", https.port(), berth.webhooks.keys(), https.dashboard());
      } else {
        log.debug(
            "webhooks off: no HTTPS port of its own (the visibility API and the dashboard"
                + " need a serving certificate; see serveHttps)");
      }
      berth.loop.start();
      if (berth.deviceFeed != null) {
        berth.deviceFeed.start();
      }
      berth.operator.start();
      // The loop rebuilds its state only once every informer has listed (InformerSync): the
      // return of JOSDK's start does not say so when a first list keeps failing. Asked only
      // after it, since JOSDK's runtime information is not meant to be read before.
      berth.informerSync.start();
      berth.late.begin();
    } catch (RuntimeException | IOException e) {
      // Half started (e.g. an informer could not sync): stop what runs, so that no stray loop or
      // reconciler keeps deciding next to the process that is started in its place.
      try {
        berth.close();
      } catch (RuntimeException stopping) {
        e.addSuppressed(stopping);
      }
      throw e;
    }
    berth.started = true;
    log.info("berth operator started; metrics on :{}", berth.metrics.port());
    return berth;
  }

  public int metricsPort() {
    return metrics.port();
  }

  /**
   * Serves the visibility API, and the dashboard when asked, over HTTPS on {@code host:port} (0: a
   * free port) with these serving keys; returns the bound port. The operator does this itself when
   * it serves the webhooks; local mode and tests call it with their own keys.
   */
  public synchronized int serveHttps(
      String host, int port, javax.net.ssl.X509KeyManager keys, boolean withDashboard)
      throws IOException {
    if (https != null) {
      throw new IllegalStateException("the HTTPS port is already served");
    }
    // The aggregated API (v1beta1.visibility.berth.dev): the API server calls with its front-proxy
    // client certificate, verified against the CA it publishes in kube-system.
    FrontProxy proxy = visibility.frontProxy().start();
    SecureEndpoints endpoints =
        new SecureEndpoints(host, port, keys, proxy.trustManager())
            .route(VisibilityEndpoint.PATH, visibility)
            .route(VisibilityEndpoint.GROUP_PATH, visibility)
            .route(VisibilityEndpoint.VERSION_PATH, visibility)
            .route(VisibilityEndpoint.VERSION_PATH + "/", visibility);
    if (withDashboard) {
      endpoints.route(DashboardEndpoint.PATH, dashboard);
    }
    https = endpoints.start();
    log.info(
        "visibility API{} on https://{}:{}",
        withDashboard ? " and dashboard" : "",
        host,
        https.port());
    return https.port();
  }

  /** The HTTPS port, or -1 while it is not served. */
  public synchronized int httpsPort() {
    return https == null ? -1 : https.port();
  }

  public PrometheusMeterRegistry registry() {
    return registry;
  }

  public boolean isAdmitting() {
    return loop.isBootstrapped();
  }

  /**
   * Stops in order: the admission loop finishes its cycle and drains its writes first (bounded),
   * while the client and the Lease are still there, so no write meets a closed client and no other
   * replica starts admitting while this one still writes; then the reconcilers and the Lease; then
   * the Events still waiting (bounded); then the servers.
   */
  @Override
  public void close() {
    stopping = true;
    started = false;
    informerSync.stop();
    if (deviceFeed != null) {
      deviceFeed.close();
    }
    loop.close();
    operator.stop();
    late.close();
    capacity.close();
    usageRecorder.close();
    budgets.close();
    // After the loop's drain (whose results record Events) and the reconcilers' stop.
    events.close(EVENT_DRAIN);
    if (webhooks != null) {
      webhooks.close();
    }
    metrics.close();
    gcMetrics.close();
    synchronized (this) {
      if (https != null) {
        https.close();
        visibility.frontProxy().close();
      }
    }
  }
}
