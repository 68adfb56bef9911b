package dev.berth.operator.integration.ray;

import dev.berth.api.v1beta1.PodSet;
import dev.berth.api.v1beta1.Workload;
import dev.berth.operator.integration.Integration;
import dev.berth.operator.integration.PriorityResolver;
import dev.berth.operator.integration.WorkloadNames;
import dev.berth.operator.kube.Copies;
import dev.berth.webhook.integration.KubeRayDefaults;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.PodTemplateSpecBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * A RayJob as one Workload: the pod sets of the RayCluster KubeRay creates for it ({@link
 * RayPodSets}) and, in K8sJobMode (KubeRay's default), a podSet {@code submitter} of one pod for
 * the Job that submits the Ray job. Started by unsuspending it with the flavors in each template;
 * KubeRay then creates the cluster and the submitter Job from them. On suspension KubeRay deletes
 * both and reports {@code Suspended}; the quota goes back once, besides, none of the pods Berth
 * labelled at admission ({@link #POD_LABEL}) is left. Finished when KubeRay reports {@code
 * Complete} or {@code Failed}.
 */
public final class RayJobAdapter implements Integration<RayJob> {
  /**
   * Put on every pod template of a RayJob when it is admitted, with its name: the cluster KubeRay
   * makes for a RayJob has a generated name, forgotten once it is deleted, so its pods are found by
   * this label instead.
   */
  public static final String POD_LABEL = "berth.dev/rayjob-name";

  static final String SUBMITTER = "submitter";
  static final String K8S_JOB_MODE = "K8sJobMode";
  static final String SIDECAR_MODE = "SidecarMode";

  /** Statuses in which KubeRay runs no pod of the RayJob. */
  private static final Set<String> AT_REST = Set.of("", "New", "Suspended", "ValidationFailed");

  @Override
  public String kind() {
    return "RayJob";
  }

  @Override
  public String workloadName(RayJob job) {
    return WorkloadNames.of("rayjob", job);
  }

  @Override
  public Workload newWorkload(RayJob job, PriorityResolver priorities) {
    return RayPodSets.newWorkload(
        job,
        kind(),
        workloadName(job),
        podSets(job),
        job.getSpec().rayClusterSpec.headGroupSpec.template,
        priorities);
  }

  /**
   * The cluster's pod sets, then the submitter's. In SidecarMode KubeRay adds its submitter
   * container to the head pod, with its default resources: counted in the head's podSet.
   */
  @Override
  public List<PodSet> podSets(RayJob job) {
    List<PodSet> podSets = new ArrayList<>(RayPodSets.of(job.getSpec().rayClusterSpec));
    if (SIDECAR_MODE.equals(job.getSpec().submissionMode)) {
      podSets.get(0).template.getSpec().getContainers().add(KubeRayDefaults.submitter());
    }
    if (k8sJobMode(job)) {
      podSets.add(RayPodSets.podSet(SUBMITTER, 1, submitterTemplate(job)));
    }
    return podSets;
  }

  static boolean k8sJobMode(RayJob job) {
    return job.getSpec().submissionMode == null
        || K8S_JOB_MODE.equals(job.getSpec().submissionMode);
  }

  /** The submitter Job's pod template: the RayJob's, else KubeRay's default one. */
  static PodTemplateSpec submitterTemplate(RayJob job) {
    if (job.getSpec().submitterPodTemplate != null) {
      return job.getSpec().submitterPodTemplate;
    }
    var head = job.getSpec().rayClusterSpec.headGroupSpec.template.getSpec().getContainers();
    Container submitter = KubeRayDefaults.submitter();
    // KubeRay runs it in the head's image.
    submitter.setImage(head.isEmpty() ? null : head.get(0).getImage());
    return new PodTemplateSpecBuilder()
        .withNewSpec()
        .withContainers(submitter)
        .withRestartPolicy("Never")
        .endSpec()
        .build();
  }

  /**
   * One that creates its own RayCluster: a RayJob without one (submitted to an existing cluster by
   * {@code clusterSelector}) is refused by the webhook, and left alone here.
   */
  @Override
  public boolean manages(RayJob job) {
    return job.getSpec() != null
        && job.getSpec().rayClusterSpec != null
        && job.getSpec().rayClusterSpec.headGroupSpec != null
        && (job.getSpec().clusterSelector == null || job.getSpec().clusterSelector.isEmpty());
  }

  @Override
  public boolean isSuspended(RayJob job) {
    return Boolean.TRUE.equals(job.getSpec().suspend);
  }

  @Override
  public RayJob suspended(RayJob job) {
    RayJob copy = Copies.deep(job);
    copy.getSpec().suspend = true;
    return copy;
  }

  /**
   * Flavors into the cluster's templates and the submitter's (KubeRay's default template is written
   * out, as Kueue does, so that it carries them), each labelled with {@link #POD_LABEL}.
   */
  @Override
  public RayJob admitted(RayJob job, Workload workload, FlavorLookup flavors) {
    RayJob copy = Copies.deep(job);
    String name = job.getMetadata().getName();
    RayPodSets.admit(copy.getSpec().rayClusterSpec, workload, flavors);
    RayPodSets.label(copy.getSpec().rayClusterSpec, POD_LABEL, name);
    if (k8sJobMode(copy)) {
      PodTemplateSpec submitter = Copies.deep(submitterTemplate(copy));
      RayPodSets.admit(submitter, SUBMITTER, workload, flavors);
      RayPodSets.label(submitter, POD_LABEL, name);
      copy.getSpec().submitterPodTemplate = submitter;
    }
    copy.getSpec().suspend = false;
    return copy;
  }

  @Override
  public RayJob restored(RayJob job, Workload workload) {
    RayJob copy = suspended(job);
    RayPodSets.restore(copy.getSpec().rayClusterSpec, workload);
    if (copy.getSpec().submitterPodTemplate != null) {
      RayPodSets.restore(copy.getSpec().submitterPodTemplate, SUBMITTER, workload);
    }
    return copy;
  }

  /** KubeRay's Complete or Failed; succeeded when the Ray job did. */
  /**
   * KubeRay's {@code jobDeploymentStatus} ({@code Suspended}, {@code Initializing}, {@code
   * Running}, {@code Complete}, ...), with the Ray job's own {@code jobStatus} once it has one; the
   * default before KubeRay has written either.
   */
  @Override
  public String ownerStatus(RayJob job) {
    RayJob.Status status = job.getStatus();
    if (status == null || blank(status.jobDeploymentStatus)) {
      return Integration.super.ownerStatus(job);
    }
    return blank(status.jobStatus)
        ? status.jobDeploymentStatus
        : status.jobDeploymentStatus + " (job " + status.jobStatus + ")";
  }

  private static boolean blank(String s) {
    return s == null || s.isEmpty();
  }

  @Override
  public Optional<Finish> finished(RayJob job) {
    RayJob.Status status = job.getStatus();
    if (status == null) {
      return Optional.empty();
    }
    String deployment = status.jobDeploymentStatus;
    if (!"Complete".equals(deployment) && !"Failed".equals(deployment)) {
      return Optional.empty();
    }
    boolean succeeded = "SUCCEEDED".equals(status.jobStatus);
    String message = status.message;
    if (message == null || message.isEmpty()) {
      message =
          "RayJob "
              + (succeeded ? "succeeded" : "failed")
              + (status.reason == null ? "" : " (" + status.reason + ")");
    }
    return Optional.of(new Finish(succeeded, message));
  }

  /**
   * 0 while KubeRay is at rest with it (suspended, new, or refused by its validation): it runs no
   * pod then; otherwise counted as one, since only whether any runs is read. Its pods themselves
   * are listed live before the quota goes back ({@link #hasPodsToCount(RayJob, List)}).
   */
  @Override
  public int activePods(RayJob job) {
    String deployment = job.getStatus() == null ? null : job.getStatus().jobDeploymentStatus;
    return AT_REST.contains(deployment == null ? "" : deployment) ? 0 : 1;
  }

  @Override
  public Map<String, String> podLabels(RayJob job) {
    return Map.of(POD_LABEL, job.getMetadata().getName());
  }

  @Override
  public boolean hasPodsToCount(RayJob job, List<Pod> pods) {
    return hasPodsToCount(job) || pods.stream().anyMatch(RayClusterAdapter::holdsNode);
  }

  /**
   * Every pod once KubeRay reports its cluster {@code ready} (Kueue's PodsReady for a RayJob), else
   * none.
   */
  @Override
  public int readyPods(RayJob job) {
    Map<String, Object> cluster = job.getStatus() == null ? null : job.getStatus().rayClusterStatus;
    return cluster != null && "ready".equals(cluster.get("state"))
        ? RayPodSets.total(podSets(job))
        : 0;
  }
}
