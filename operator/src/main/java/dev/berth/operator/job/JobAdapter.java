package dev.berth.operator.job;

import dev.berth.api.v1beta1.Berth;
import dev.berth.api.v1beta1.PodSet;
import dev.berth.api.v1beta1.PodSetAssignment;
import dev.berth.api.v1beta1.Workload;
import dev.berth.api.v1beta1.WorkloadSpec;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobCondition;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Translates between a batch/v1 Job and its Workload: one podSet {@code main} of
 * min(parallelism, completions) pods. Pure functions over copies; the reconciler does the writes.
 */
public final class JobAdapter {
  public static final String PODSET = "main";
  /** Where the Job's own parallelism is kept while partial admission lowers it. */
  public static final String ORIGINAL_PARALLELISM = "berth.dev/original-parallelism";

  private JobAdapter() {}

  public static boolean isManaged(Job job) {
    return queueName(job).isPresent();
  }

  public static Optional<String> queueName(Job job) {
    Map<String, String> labels = job.getMetadata().getLabels();
    return Optional.ofNullable(labels == null ? null : labels.get(Berth.QUEUE_NAME_LABEL))
        .filter(s -> !s.isBlank());
  }

  /** The name of the Workload of a Job: stable per Job object, unique across re-creations. */
  public static String workloadName(Job job) {
    String base = "job-" + job.getMetadata().getName();
    String suffix = "-" + shortHash(job.getMetadata().getUid());
    int max = 253 - suffix.length();
    return (base.length() > max ? base.substring(0, max) : base) + suffix;
  }

  /** The number of pods the Job runs at once: min(parallelism, completions), parallelism 1 when unset. */
  public static int podCount(Job job) {
    int parallelism = originalParallelism(job);
    Integer completions = job.getSpec().getCompletions();
    return completions == null ? parallelism : Math.min(parallelism, completions);
  }

  private static int originalParallelism(Job job) {
    String kept = annotation(job, ORIGINAL_PARALLELISM);
    if (kept != null) {
      return Integer.parseInt(kept);
    }
    Integer parallelism = job.getSpec().getParallelism();
    return parallelism == null ? 1 : parallelism;
  }

  /** A new Workload for the Job, owned by it; priority is resolved by the caller. */
  public static Workload newWorkload(Job job, WorkloadSpec.PriorityClassRef priorityClass, int priority) {
    Workload workload = new Workload();
    workload.getMetadata().setName(workloadName(job));
    workload.getMetadata().setNamespace(job.getMetadata().getNamespace());
    workload.getMetadata().setLabels(
        Map.of(Berth.OWNER_UID_LABEL, job.getMetadata().getUid(), Berth.OWNER_KIND_LABEL, "Job"));
    workload.getMetadata().setOwnerReferences(
        List.of(
            new OwnerReferenceBuilder()
                .withApiVersion("batch/v1")
                .withKind("Job")
                .withName(job.getMetadata().getName())
                .withUid(job.getMetadata().getUid())
                .withController(true)
                .withBlockOwnerDeletion(true)
                .build()));
    WorkloadSpec spec = new WorkloadSpec();
    spec.queueName = queueName(job).orElseThrow();
    spec.priorityClassRef = priorityClass;
    spec.priority = priority;
    PodSet podSet = new PodSet(PODSET, podCount(job), copy(job.getSpec().getTemplate()));
    String min = annotation(job, Berth.JOB_MIN_PARALLELISM_ANNOTATION);
    if (min != null) {
      podSet.minCount = Math.min(Integer.parseInt(min.trim()), podSet.count);
    }
    spec.podSets = List.of(podSet);
    workload.setSpec(spec);
    return workload;
  }

  /**
   * The Job as it must be to start under an admission: the flavors' node labels in the
   * nodeSelector, their tolerations added, parallelism lowered for a partial admission, and
   * unsuspended.
   */
  public static Job admitted(Job job, PodSetAssignment assignment, FlavorLookup flavors) {
    Job result = copy(job);
    PodTemplateSpec template = result.getSpec().getTemplate();
    Map<String, String> nodeSelector =
        new LinkedHashMap<>(
            template.getSpec().getNodeSelector() == null
                ? Map.of()
                : template.getSpec().getNodeSelector());
    List<Toleration> tolerations =
        new ArrayList<>(
            template.getSpec().getTolerations() == null
                ? List.of()
                : template.getSpec().getTolerations());
    if (assignment.flavors != null) {
      for (String flavor : assignment.flavors.values().stream().distinct().toList()) {
        nodeSelector.putAll(flavors.nodeLabels(flavor));
        for (Toleration toleration : flavors.tolerations(flavor)) {
          if (!tolerations.contains(toleration)) {
            tolerations.add(toleration);
          }
        }
      }
    }
    template.getSpec().setNodeSelector(nodeSelector.isEmpty() ? null : nodeSelector);
    template.getSpec().setTolerations(tolerations.isEmpty() ? null : tolerations);
    int admittedCount = assignment.count == null ? podCount(job) : assignment.count;
    if (admittedCount < podCount(job)) {
      result.getMetadata().getAnnotations().put(ORIGINAL_PARALLELISM, String.valueOf(originalParallelism(job)));
      result.getSpec().setParallelism(admittedCount);
    }
    result.getSpec().setSuspend(false);
    return result;
  }

  /**
   * The Job as it must be after an eviction: suspended, its pod template's scheduling fields and
   * parallelism back to what the user wrote (kept in the Workload's podSet), no start time.
   */
  public static Job suspendedAndRestored(Job job, PodTemplateSpec original) {
    Job result = copy(job);
    result.getSpec().setSuspend(true);
    if (original != null && original.getSpec() != null) {
      result.getSpec().getTemplate().getSpec().setNodeSelector(original.getSpec().getNodeSelector());
      result.getSpec().getTemplate().getSpec().setTolerations(original.getSpec().getTolerations());
    }
    String parallelism = result.getMetadata().getAnnotations().remove(ORIGINAL_PARALLELISM);
    if (parallelism != null) {
      result.getSpec().setParallelism(Integer.parseInt(parallelism));
    }
    return result;
  }

  public static boolean isSuspended(Job job) {
    return Boolean.TRUE.equals(job.getSpec().getSuspend());
  }

  /** Complete or Failed, with the condition's message. */
  public static Optional<JobCondition> finishedCondition(Job job) {
    if (job.getStatus() == null || job.getStatus().getConditions() == null) {
      return Optional.empty();
    }
    return job.getStatus().getConditions().stream()
        .filter(c -> ("Complete".equals(c.getType()) || "Failed".equals(c.getType())))
        .filter(c -> "True".equals(c.getStatus()))
        .findFirst();
  }

  public static int activePods(Job job) {
    return job.getStatus() == null || job.getStatus().getActive() == null
        ? 0
        : job.getStatus().getActive();
  }

  private static String annotation(Job job, String key) {
    Map<String, String> annotations = job.getMetadata().getAnnotations();
    return annotations == null ? null : annotations.get(key);
  }

  private static String shortHash(String uid) {
    try {
      byte[] digest = MessageDigest.getInstance("SHA-1").digest(uid.getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(digest, 0, 3).substring(0, 5);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  static <T> T copy(T object) {
    @SuppressWarnings("unchecked")
    Class<T> type = (Class<T>) object.getClass();
    T clone = Serialization.clone(object);
    if (clone instanceof Job j && j.getMetadata().getAnnotations() == null) {
      j.getMetadata().setAnnotations(new LinkedHashMap<>());
    }
    return type.cast(clone);
  }

  /** The node labels and tolerations of a ResourceFlavor, by name. */
  public interface FlavorLookup {
    Map<String, String> nodeLabels(String flavor);

    List<Toleration> tolerations(String flavor);
  }
}
