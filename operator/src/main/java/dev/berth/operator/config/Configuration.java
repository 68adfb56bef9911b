package dev.berth.operator.config;

import java.net.URI;
import java.time.Duration;
import java.util.List;

/**
 * Berth's configuration, {@code apiVersion: config.berth.dev/v1beta1}, {@code kind: Configuration}:
 * one typed object per section, shaped like Kueue's {@code Configuration} where the concept is the
 * same. {@link ConfigurationLoader} is the only way to make one from a file (and the environment's
 * overrides); every value in it has been checked. docs/configuration.md lists every field, its
 * default and its meaning; a test holds that table, these records and the chart's rendering in
 * step.
 */
public record Configuration(
    String namespace,
    LeaderElection leaderElection,
    Metrics metrics,
    Webhook webhook,
    InternalCertManagement internalCertManagement,
    ClientConnection clientConnection,
    WaitForPodsReady waitForPodsReady,
    FairSharing fairSharing,
    Integrations integrations,
    Resources resources,
    Usage usage,
    Capacity capacity,
    Utilization utilization,
    Visibility visibility,
    AdmissionFairSharing admissionFairSharing) {

  public static final String API_VERSION = "config.berth.dev/v1beta1";
  public static final String KIND = "Configuration";

  /**
   * Only the Lease holder admits.
   *
   * @param leaderElect take part in leader election (off: this process admits alone)
   * @param resourceName the coordination.k8s.io Lease, in {@link #namespace()}
   * @param exitOnLostLease exit when the Lease is lost, so that only one replica ever decides
   */
  public record LeaderElection(boolean leaderElect, String resourceName, boolean exitOnLostLease) {}

  /** {@code /metrics}, {@code /healthz} and {@code /readyz}, plain HTTP; 0: a free port. */
  public record Metrics(int port) {}

  /**
   * The admission webhooks served from the operator's process.
   *
   * @param operatorIdentity the only user that may unsuspend a managed Job
   * @param certDir where cert-manager's Secret is mounted (read only without internal certificates)
   * @param manageJobsWithoutQueueName the queue rule's scope, Kueue's field of the same name: true
   *     (Berth's default, the safer), every Job, JobSet and pod asking covered resources in a
   *     namespace Berth manages must name a LocalQueue; false, only labelled ones are Berth's and
   *     the rest run as they would without it
   */
  public record Webhook(
      boolean enable,
      int port,
      int threads,
      String certDir,
      String operatorIdentity,
      boolean manageJobsWithoutQueueName) {}

  /**
   * The webhooks' serving certificate: made and rotated by the operator ({@code enable}), which
   * then patches the caBundle of the two named configurations, or read from {@link Webhook#certDir}
   * (cert-manager).
   *
   * @param webhookServiceName the Service the certificate is made for
   * @param webhookSecretName the Secret that keeps the operator's CA
   */
  public record InternalCertManagement(
      boolean enable,
      String webhookServiceName,
      String webhookSecretName,
      String validatingWebhookConfigurationName,
      String mutatingWebhookConfigurationName) {}

  /**
   * The operator's client: the admission loop's writers and their client-side rate bound (as
   * client-go's QPS and burst), the share of it pending workloads' and queues' status may take, the
   * watch silence bound and the TLS engine.
   *
   * @param writers writer threads (writes on the wire at once)
   * @param queue writes in flight or waiting, at most
   * @param pendingWorkloadQps pending workloads' QuotaReserved=False writes a second, all together
   * @param queueStatusQps ClusterQueue, LocalQueue and Cohort status writes a second, all together
   * @param watchSilence how long a watch may hear nothing before it is opened again (zero: never)
   * @param nativeTls TLS by BoringSSL where its library loads
   */
  public record ClientConnection(
      double qps,
      int burst,
      int writers,
      int queue,
      double pendingWorkloadQps,
      double queueStatusQps,
      Duration watchSilence,
      boolean nativeTls) {}

  /**
   * Kueue's waitForPodsReady: an admitted workload whose pods are not all ready within {@code
   * timeout} is evicted and requeued with backoff.
   *
   * @param recoveryTimeout how long a ready workload may be unready again; null: no limit
   */
  public record WaitForPodsReady(
      boolean enable,
      Duration timeout,
      boolean blockAdmission,
      Duration recoveryTimeout,
      RequeuingStrategy requeuingStrategy) {}

  /**
   * @param timestamp {@code Eviction} or {@code Creation}: what orders a requeued workload
   * @param backoffLimitCount requeues before the workload is deactivated; null: no limit
   */
  public record RequeuingStrategy(
      String timestamp,
      long backoffBaseSeconds,
      long backoffMaxSeconds,
      Integer backoffLimitCount) {}

  /**
   * Fair sharing: admission ordered, and preemption in a cohort tree decided, by weighted
   * dominant-resource share.
   *
   * @param preemptionStrategies Kueue's strategy names, in the order they are tried
   */
  public record FairSharing(boolean enable, List<String> preemptionStrategies) {
    /** Kueue's default order: the final-share rule, then the initial-share rule. */
    public static final List<String> DEFAULT_STRATEGIES = List.of("LessThanOrEqualToFinalShare");

    /** With the default strategies. */
    public FairSharing(boolean enable) {
      this(enable, DEFAULT_STRATEGIES);
    }

    public FairSharing {
      preemptionStrategies = List.copyOf(preemptionStrategies);
    }
  }

  /** This configuration with other resources (local mode's DeviceClass mapping). */
  public Configuration withResources(Resources other) {
    return new Configuration(
        namespace,
        leaderElection,
        metrics,
        webhook,
        internalCertManagement,
        clientConnection,
        waitForPodsReady,
        fairSharing,
        integrations,
        other,
        usage,
        capacity,
        utilization,
        visibility,
        admissionFairSharing);
  }

  /** This configuration with other integrations (local mode turns every kind on). */
  public Configuration withIntegrations(Integrations other) {
    return new Configuration(
        namespace,
        leaderElection,
        metrics,
        webhook,
        internalCertManagement,
        clientConnection,
        waitForPodsReady,
        fairSharing,
        other,
        resources,
        usage,
        capacity,
        utilization,
        visibility,
        admissionFairSharing);
  }

  /** The job kinds Berth manages, by Kueue's framework names. */
  public record Integrations(List<String> frameworks) {
    public Integrations {
      frameworks = List.copyOf(frameworks);
    }

    public boolean enabled(String framework) {
      return frameworks.contains(framework);
    }
  }

  /**
   * What quota resource the devices of each DeviceClass (Dynamic Resource Allocation) are charged
   * to: a pod's ResourceClaimTemplates and shared ResourceClaims count against the mapped resource
   * as a container request of it would (docs/dra.md).
   */
  public record Resources(List<DeviceClassMapping> deviceClassMappings) {
    public Resources {
      deviceClassMappings = List.copyOf(deviceClassMappings);
    }

    /** DeviceClass name → quota resource name. */
    public dev.berth.webhook.dra.DeviceClassMappings mappings() {
      java.util.Map<String, String> byClass = new java.util.HashMap<>();
      deviceClassMappings.forEach(m -> m.deviceClassNames().forEach(c -> byClass.put(c, m.name())));
      return new dev.berth.webhook.dra.DeviceClassMappings(byClass);
    }
  }

  /**
   * @param name the quota resource (as a ClusterQueue's {@code coveredResources} names it)
   * @param deviceClassNames the DeviceClasses whose devices are charged to it
   */
  public record DeviceClassMapping(String name, List<String> deviceClassNames) {
    public DeviceClassMapping {
      deviceClassNames = List.copyOf(deviceClassNames);
    }
  }

  /** How often a namespace's monthly UsageReport is written at most (zero: at once). */
  public record Usage(Duration reportInterval) {}

  /** NoSchedule/NoExecute taint keys that take a node out of allocatable capacity. */
  public record Capacity(List<String> excludedTaintKeys) {
    public Capacity {
      excludedTaintKeys = List.copyOf(excludedTaintKeys);
    }
  }

  /**
   * The DCGM join: GPU use from dcgm-exporter's series in Prometheus.
   *
   * @param prometheusUrl null: no join
   * @param delay after a run ends, before asking
   * @param giveUp after which a run whose query keeps failing is recorded without a used figure
   */
  public record Utilization(
      URI prometheusUrl,
      String metric,
      String namespaceLabel,
      String podLabel,
      Duration delay,
      Duration giveUp) {}

  /** The HTTPS port: the visibility API always, the web dashboard when asked. */
  public record Visibility(int port, boolean dashboard) {}

  /**
   * Kueue's admissionFairSharing: how the recent usage that orders the LocalQueues of a
   * ClusterQueue with {@code admissionScope.admissionMode: UsageBasedAdmissionFairSharing} is
   * measured.
   *
   * @param usageHalfLifeTime after which past usage counts half (zero: only the last admissions)
   * @param usageSamplingInterval how often the usage of admitted workloads is sampled and stored
   * @param resourceWeights a resource's weight per base unit (cpu core, byte, GPU); absent: 1
   */
  public record AdmissionFairSharing(
      Duration usageHalfLifeTime,
      Duration usageSamplingInterval,
      java.util.Map<String, Double> resourceWeights) {
    public static final AdmissionFairSharing DEFAULT =
        new AdmissionFairSharing(Duration.ofHours(168), Duration.ofMinutes(5), java.util.Map.of());

    public AdmissionFairSharing {
      resourceWeights =
          java.util.Collections.unmodifiableMap(new java.util.TreeMap<>(resourceWeights));
    }
  }
}
