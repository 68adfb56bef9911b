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
  POD("pod", "", "v1", "Pod", "pods", List.of());

  private final String frameworkName;
  private final String group;
  private final String version;
  private final String kind;
  private final String plural;
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
   * of its children): each with its status and finalizers subresources.
   */
  public List<Resource> resources() {
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

  /** By kind, e.g. {@code JobSet}. */
  public static Framework ofKind(String kind) {
    return Arrays.stream(values())
        .filter(f -> f.kind.equals(kind))
        .findFirst()
        .orElseThrow(() -> new IllegalArgumentException("no integration of kind " + kind));
  }

  /** Every framework name, in registry order. */
  public static List<String> frameworkNames() {
    return Arrays.stream(values()).map(Framework::frameworkName).toList();
  }

  private String pathSuffix() {
    return group.replace('.', '-') + "-" + version + "-" + webhookName();
  }
}
