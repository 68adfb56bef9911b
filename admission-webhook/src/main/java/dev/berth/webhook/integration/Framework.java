package dev.berth.webhook.integration;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * The registry of the workload kinds Berth runs under a Workload, one constant per kind: its Kueue
 * framework name (what {@code integrations.frameworks} lists), its API group, version, kind and
 * resource, the paths of its two webhooks, and the resources the operator needs rights on to run
 * it. Everything that names kinds reads this list: the webhook server's routes, the operator's
 * reconcilers ({@code dev.berth.operator.Integrations} adds each kind's adapter), the
 * configuration's known framework names and local mode; the chart's table of kinds ({@code
 * helm/berth/templates/_integrations.tpl}) is held equal to it by {@code ChartIntegrationsTest}.
 * Pure data, so that every module may read it; docs/integrations.md walks through adding a
 * constant.
 */
public enum Framework {
  BATCH_JOB("batch/job", "batch", "v1", "Job", "jobs", List.of()),
  /** Its pods are run by child batch/v1 Jobs, which the operator reads and marks too. */
  JOBSET(
      "jobset.x-k8s.io/jobset",
      "jobset.x-k8s.io",
      "v1alpha2",
      "JobSet",
      "jobsets",
      List.of(new Resource("batch", "jobs"))),
  /**
   * Plain Pods labelled with a queue: gated at creation, released with the admission injected,
   * deleted on eviction (a pod cannot be suspended). Core group, so its webhook paths are {@code
   * /validate--v1-pod} and {@code /mutate--v1-pod}, shared with the topology gate's.
   */
  POD("pod", "", "v1", "Pod", "pods", List.of()),
  /**
   * Deployments for serving: each pod of its ReplicaSets is queued on its own as a plain Pod (the
   * pod integration gates and runs it, so {@code pod} must be on too). The Deployment itself is
   * only defaulted (its queue and priority labels copied to its pod template) and checked at
   * creation; the operator neither reads nor writes it, so it needs no rights on it.
   */
  DEPLOYMENT("deployment", "apps", "v1", "Deployment", "deployments", null),
  /**
   * StatefulSets for serving: all its pods are one pod group, admitted whole (the pod integration
   * runs them; the StatefulSet webhook names the group in its pod template).
   */
  STATEFULSET("statefulset", "apps", "v1", "StatefulSet", "statefulsets", null),
  /**
   * LeaderWorkerSets (kubernetes-sigs/lws) for serving large models: each replica group (a leader
   * and {@code size - 1} workers, made by the LWS controller through StatefulSets) is one pod
   * group, admitted whole with a podSet per role (the pod integration runs it; the LWS webhook puts
   * the queue into both pod templates and the pod webhook names each pod's group). The operator
   * neither reads nor writes the LeaderWorkerSet.
   */
  LEADERWORKERSET(
      "leaderworkerset.x-k8s.io/leaderworkerset",
      "leaderworkerset.x-k8s.io",
      "v1",
      "LeaderWorkerSet",
      "leaderworkersets",
      null),
  /**
   * KubeRay's RayJob: one Workload for its RayCluster (head and worker groups) and its submitter
   * Job. KubeRay creates both; neither is queued a second time, and the operator reads the
   * RayCluster to know when its pods are gone.
   */
  RAYJOB(
      "ray.io/rayjob",
      "ray.io",
      "v1",
      "RayJob",
      "rayjobs",
      List.of(new Resource("ray.io", "rayclusters"))),
  /** KubeRay's RayCluster: one Workload, a podSet for the head and one per worker group. */
  RAYCLUSTER("ray.io/raycluster", "ray.io", "v1", "RayCluster", "rayclusters", List.of()),
  /**
   * The Kubeflow training operator's PyTorchJob (kubeflow.org/v1): one podSet per replica type
   * (Master, Worker), whose pods the training operator creates itself; suspended through {@code
   * spec.runPolicy.suspend}. Off by default, as in Kueue ({@link #defaultFrameworkNames}).
   */
  PYTORCHJOB(
      "kubeflow.org/pytorchjob",
      "kubeflow.org",
      "v1",
      "PyTorchJob",
      "pytorchjobs",
      List.of(),
      KubeflowSuspend.POINTER),
  /**
   * The training operator's MPIJob (kubeflow.org/v1, not the mpi-operator's v2beta1 that Kueue's
   * framework of the same name runs): podSets Launcher and Worker, {@code spec.runPolicy.suspend}.
   */
  MPIJOB(
      "kubeflow.org/mpijob",
      "kubeflow.org",
      "v1",
      "MPIJob",
      "mpijobs",
      List.of(),
      KubeflowSuspend.POINTER),
  /**
   * Kubeflow Trainer's TrainJob (trainer.kubeflow.org/v1alpha1): one Workload whose pod sets are
   * its runtime's replicatedJobs with the TrainJob's overrides; the Trainer makes a JobSet of them,
   * which is not queued a second time. The operator reads the runtimes and the JobSet's child Jobs.
   */
  TRAINJOB(
      "trainer.kubeflow.org/trainjob",
      "trainer.kubeflow.org",
      "v1alpha1",
      "TrainJob",
      "trainjobs",
      List.of(
          new Resource("trainer.kubeflow.org", "trainingruntimes"),
          new Resource("trainer.kubeflow.org", "clustertrainingruntimes"),
          new Resource("batch", "jobs")));

  /** Where a Kubeflow v1 job says it is suspended. */
  private static final class KubeflowSuspend {
    static final String POINTER = "/spec/runPolicy/suspend";
  }

  private final String frameworkName;
  private final String group;
  private final String version;
  private final String kind;
  private final String plural;

  /** Null for a kind whose pods the pod integration runs: the operator needs no rights on it. */
  private final List<Resource> childResources;

  /** The JSON pointer of its suspend flag. */
  private final String suspendPointer;

  Framework(
      String frameworkName,
      String group,
      String version,
      String kind,
      String plural,
      List<Resource> childResources) {
    this(frameworkName, group, version, kind, plural, childResources, "/spec/suspend");
  }

  Framework(
      String frameworkName,
      String group,
      String version,
      String kind,
      String plural,
      List<Resource> childResources,
      String suspendPointer) {
    this.suspendPointer = suspendPointer;
    this.frameworkName = frameworkName;
    this.group = group;
    this.version = version;
    this.kind = kind;
    this.plural = plural;
    this.childResources = childResources;
  }

  /** A resource of an API group, e.g. {@code batch}, {@code jobs}. */
  public record Resource(String group, String plural) {}

  /**
   * Kueue's framework name, e.g. {@code batch/job}: the value {@code integrations.frameworks}
   * lists.
   */
  public String frameworkName() {
    return frameworkName;
  }

  public String group() {
    return group;
  }

  public String version() {
    return version;
  }

  public String kind() {
    return kind;
  }

  /**
   * Where the kind says it is suspended, as a JSON pointer: {@code /spec/suspend} for most kinds,
   * {@code /spec/runPolicy/suspend} for the Kubeflow v1 jobs.
   */
  public String suspendPointer() {
    return suspendPointer;
  }

  /** The resource, e.g. {@code jobs}. */
  public String plural() {
    return plural;
  }

  /**
   * The validating webhook's path, as controller-runtime names them: {@code
   * /validate-batch-v1-job}.
   */
  public String validatePath() {
    return "/validate-" + pathSuffix();
  }

  /** The mutating (defaulting) webhook's path: {@code /mutate-batch-v1-job}. */
  public String mutatePath() {
    return "/mutate-" + pathSuffix();
  }

  /** The chart's name of its webhooks, {@code v<name>.berth.dev} and {@code m<name>.berth.dev}. */
  public String webhookName() {
    return kind.toLowerCase(Locale.ROOT);
  }

  /**
   * The resources the operator reads and writes to run this kind (the kind's own first, then those
   * of its children): each with its status and finalizers subresources. None for a kind {@link
   * #runByPods}.
   */
  public List<Resource> resources() {
    if (childResources == null) {
      return List.of();
    }
    return Stream.concat(Stream.of(new Resource(group, plural)), childResources.stream()).toList();
  }

  /**
   * The CustomResourceDefinition that serves the kind, e.g. {@code jobsets.jobset.x-k8s.io}; empty
   * for a kind the API server has built in. A CRD's group always holds a dot, a built-in group
   * ({@code batch}, {@code apps}, the core group) never does.
   */
  public Optional<String> crd() {
    return group.contains(".") ? Optional.of(plural + "." + group) : Optional.empty();
  }

  /**
   * Whether the pod integration runs this kind's pods, each as a plain Pod, so the operator has no
   * reconciler of its own for it and the kind needs {@link #POD} on.
   */
  public boolean runByPods() {
    return childResources == null;
  }

  /** By kind, e.g. {@code JobSet}. */
  public static Framework ofKind(String kind) {
    return Arrays.stream(values())
        .filter(f -> f.kind.equals(kind))
        .findFirst()
        .orElseThrow(() -> new IllegalArgumentException("no integration of kind " + kind));
  }

  /** By Kueue framework name, e.g. {@code deployment}. */
  public static Framework ofName(String frameworkName) {
    return Arrays.stream(values())
        .filter(f -> f.frameworkName.equals(frameworkName))
        .findFirst()
        .orElseThrow(() -> new IllegalArgumentException("no framework " + frameworkName));
  }

  /**
   * The framework names on by default (the chart's {@code integrations.frameworks} and the
   * operator's configuration without one), in registry order: all but the serving kinds ({@link
   * #runByPods}), which, as in Kueue, a platform turns on (they change what happens to every
   * Deployment and StatefulSet of a managed namespace: refused at creation without a queue, instead
   * of their pods one by one), LeaderWorkerSet (its kind needs the chart's pod webhooks to see its
   * StatefulSets' pods), and the training operator's v1 jobs: Kueue leaves PyTorchJob off, and the
   * MPIJob it turns on is the mpi-operator's v2beta1, whose CRD has the same name as the v1 one
   * ({@code mpijobs.kubeflow.org}); a platform names the one it runs. Kubeflow Trainer's TrainJob
   * is off too, turned on where the Trainer runs (then the chart lets the operator read every
   * training runtime, which a TrainJob's pod sets come from).
   */
  public static List<String> defaultFrameworkNames() {
    return Arrays.stream(values())
        .filter(f -> !f.runByPods() && !f.group.endsWith("kubeflow.org"))
        .map(Framework::frameworkName)
        .toList();
  }

  /** Every framework name, in registry order. */
  public static List<String> frameworkNames() {
    return Arrays.stream(values()).map(Framework::frameworkName).toList();
  }

  private String pathSuffix() {
    return group.replace('.', '-') + "-" + version + "-" + webhookName();
  }
}
