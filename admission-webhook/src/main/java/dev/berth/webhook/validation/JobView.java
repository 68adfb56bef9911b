package dev.berth.webhook.validation;

import com.fasterxml.jackson.databind.JsonNode;
import dev.berth.api.v1beta1.Berth;
import dev.berth.webhook.integration.Framework;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.HashMap;
import java.util.Map;

/**
 * What the queue rules need from a batch/v1 Job, a JobSet or another registry kind: its labels and
 * annotations, whether it is suspended, and whether a JobSet, a RayJob or a TrainJob owns it (then
 * the owner, not the child, is managed).
 */
public record JobView(
    Map<String, String> labels,
    Map<String, String> annotations,
    boolean suspended,
    boolean childOfJobSet) {

  public static JobView of(Object jobOrJobSet) {
    return of(Serialization.jsonMapper().<JsonNode>valueToTree(jobOrJobSet));
  }

  public static JobView of(JsonNode json) {
    return of(json, "/spec/suspend");
  }

  /** A registry kind's object, its suspension read where the kind keeps it. */
  public static JobView of(JsonNode json, Framework framework) {
    return of(json, framework.suspendPointer());
  }

  private static JobView of(JsonNode json, String suspendPointer) {
    JsonNode metadata = json.path("metadata");
    // A JobSet's child Job, what KubeRay makes for a RayJob (its RayCluster, its submitter Job),
    // or the JobSet Kubeflow Trainer makes for a TrainJob: the owner is what Berth queues.
    boolean child =
        JobSetChildren.owner(json) != null
            || RayChildren.owner(json) != null
            || TrainJobChildren.owner(json) != null;
    return new JobView(
        strings(metadata.path("labels")),
        strings(metadata.path("annotations")),
        json.at(suspendPointer).asBoolean(false),
        child);
  }

  /** Managed = carries the queue-name label and is not a JobSet's or RayJob's child. */
  public boolean managed() {
    return !childOfJobSet && labels.containsKey(Berth.QUEUE_NAME_LABEL);
  }

  public String queueName() {
    return labels.get(Berth.QUEUE_NAME_LABEL);
  }

  private static Map<String, String> strings(JsonNode map) {
    Map<String, String> out = new HashMap<>();
    map.fields().forEachRemaining(e -> out.put(e.getKey(), e.getValue().asText()));
    return out;
  }
}
