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
      null);

  private final String frameworkName;
  private final String group;
  private final String version;
  private final String kind;
  private final String plural;

  /** Null for a kind whose pods the pod integration runs: the operator needs no rights on it. */
  private final List<Resource> childResources;

  Framework(
      String frameworkName,
      String group,
      String version,
      String kind,
      String plural,
      List<Resource> childResources) {
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
   * of their pods one by one). LeaderWorkerSet is one of them: Kueue's configuration API defaults
   * to batch/job alone, and the kind needs the chart's pod webhooks to see its StatefulSets' pods.
   */
  public static List<String> defaultFrameworkNames() {
    return Arrays.stream(values())
        .filter(f -> !f.runByPods())
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
