package dev.berth.operator.integration;

import dev.berth.api.v1beta1.Berth;
import dev.berth.api.v1beta1.PodSet;
import dev.berth.api.v1beta1.Workload;
import dev.berth.api.v1beta1.WorkloadSpec;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

/** The Workload an integration creates for its owner: name, ownership, labels, queue, priority. */
public final class WorkloadNames {
  private WorkloadNames() {}

  /** Stable per owner object, unique across re-creations of an owner with the same name. */
  public static String of(String prefix, HasMetadata owner) {
    String base = prefix + "-" + owner.getMetadata().getName();
    String suffix = "-" + shortHash(owner.getMetadata().getUid());
    int max = 253 - suffix.length();
    return (base.length() > max ? base.substring(0, max) : base) + suffix;
  }

  public static Workload newWorkload(
      HasMetadata owner,
      String apiVersion,
      String kind,
      String name,
      List<PodSet> podSets,
      PriorityResolver.Resolved priority) {
    Workload workload = new Workload();
    workload.getMetadata().setName(name);
    workload.getMetadata().setNamespace(owner.getMetadata().getNamespace());
    workload
        .getMetadata()
        .setLabels(
            Map.of(
                Berth.OWNER_UID_LABEL, owner.getMetadata().getUid(), Berth.OWNER_KIND_LABEL, kind));
    // The owner's submission time orders it among workloads created in the same second.
    String submitted =
        owner.getMetadata().getAnnotations() == null
            ? null
            : owner.getMetadata().getAnnotations().get(Berth.SUBMITTED_AT_ANNOTATION);
    if (submitted == null) {
      submitted = owner.getMetadata().getCreationTimestamp();
    }
    if (submitted != null) {
      workload.getMetadata().setAnnotations(Map.of(Berth.SUBMITTED_AT_ANNOTATION, submitted));
    }
    workload
        .getMetadata()
        .setOwnerReferences(
            List.of(
                new OwnerReferenceBuilder()
                    .withApiVersion(apiVersion)
                    .withKind(kind)
                    .withName(owner.getMetadata().getName())
                    .withUid(owner.getMetadata().getUid())
                    .withController(true)
                    .withBlockOwnerDeletion(true)
                    .build()));
    WorkloadSpec spec = new WorkloadSpec();
    spec.queueName = owner.getMetadata().getLabels().get(Berth.QUEUE_NAME_LABEL);
    spec.priorityClassRef = priority.ref();
    spec.priority = priority.value();
    spec.podSets = podSets;
    workload.setSpec(spec);
    return workload;
  }

  private static String shortHash(String uid) {
    try {
      byte[] digest =
          MessageDigest.getInstance("SHA-1").digest(uid.getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(digest, 0, 3).substring(0, 5);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * The berth.dev/max-exec-time-seconds label as seconds, or null when absent or not a positive
   * whole number (the Job webhook refuses those; one stored around it runs without a limit).
   */
  public static Integer maxExecTime(java.util.Map<String, String> labels) {
    String value =
        labels == null ? null : labels.get(dev.berth.api.v1beta1.Berth.MAX_EXEC_TIME_LABEL);
    if (value == null) {
      return null;
    }
    try {
      int seconds = Integer.parseInt(value.trim());
      return seconds >= 1 ? seconds : null;
    } catch (NumberFormatException e) {
      return null;
    }
  }
}
