package dev.berth.webhook.validation;

import com.fasterxml.jackson.databind.JsonNode;
import dev.berth.api.v1beta1.ClusterQueue;
import dev.berth.api.v1beta1.Cohort;
import dev.berth.api.v1beta1.LocalQueue;
import dev.berth.api.v1beta1.ResourceFlavor;
import dev.berth.api.v1beta1.Topology;
import dev.berth.api.v1beta1.Workload;
import dev.berth.api.v1beta1.WorkloadPriorityClass;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.List;

/** Test objects from YAML, and the facade call for their kind. */
final class TestObjects {
  private TestObjects() {}

  static <T> T parse(String yaml, Class<T> type) {
    return Serialization.unmarshal(yaml, type);
  }

  static JsonNode json(String yaml) {
    return Serialization.jsonMapper()
        .valueToTree(Serialization.unmarshal(yaml, java.util.Map.class));
  }

  static List<FieldError> validate(String yaml) {
    String kind = json(yaml).path("kind").asText();
    return switch (kind) {
      case "ClusterQueue" -> BerthValidators.clusterQueue(parse(yaml, ClusterQueue.class));
      case "Cohort" -> BerthValidators.cohort(parse(yaml, Cohort.class));
      case "ResourceFlavor" -> BerthValidators.resourceFlavor(parse(yaml, ResourceFlavor.class));
      case "LocalQueue" -> BerthValidators.localQueue(parse(yaml, LocalQueue.class));
      case "Workload" -> BerthValidators.workload(parse(yaml, Workload.class));
      case "WorkloadPriorityClass" ->
          BerthValidators.workloadPriorityClass(parse(yaml, WorkloadPriorityClass.class));
      case "Topology" -> BerthValidators.topology(parse(yaml, Topology.class));
      case "Job" -> BerthValidators.job(parse(yaml, Job.class));
      case "JobSet" -> BerthValidators.jobSet(json(yaml));
      default -> throw new IllegalArgumentException(kind);
    };
  }
}
