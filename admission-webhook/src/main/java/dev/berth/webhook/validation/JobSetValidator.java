package dev.berth.webhook.validation;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * A jobset.x-k8s.io/v1alpha2 JobSet, read as JSON (fabric8 has no JobSet model). Berth turns each
 * replicatedJob into one podSet, so a managed JobSet must fit a Workload: at most 18 of them, with
 * distinct names and countable pod templates.
 */
public final class JobSetValidator {
  private static final String KIND = "JobSet";

  private JobSetValidator() {}

  public static List<FieldError> validate(JsonNode jobSet) {
    Errors errors = new Errors();
    JobView view = JobView.of(jobSet);
    if (!view.managed()) {
      return errors.toList();
    }
    ManagedJobRules.validateLabels(view, errors);
    checkReplicatedJobs(
        jobSet.path("spec").path("replicatedJobs"),
        FieldPath.root("spec").child("replicatedJobs"),
        errors);
    return errors.toList();
  }

  public static List<FieldError> validateUpdate(JsonNode old, JsonNode jobSet) {
    Errors errors = new Errors();
    errors.addAll(validate(jobSet));
    ManagedJobRules.validateQueueUnchangedWhileRunning(
        JobView.of(old), JobView.of(jobSet), KIND, errors);
    return errors.toList();
  }

  private static void checkReplicatedJobs(JsonNode jobs, FieldPath path, Errors errors) {
    if (!jobs.isArray() || jobs.isEmpty()) {
      errors.add(FieldError.required(path, "a managed JobSet needs at least one replicatedJob"));
      return;
    }
    if (jobs.size() > WorkloadValidator.MAX_POD_SETS) {
      errors.add(FieldError.tooMany(path, jobs.size(), WorkloadValidator.MAX_POD_SETS));
    }
    Set<String> names = new HashSet<>();
    for (int i = 0; i < jobs.size(); i++) {
      JsonNode job = jobs.get(i);
      FieldPath jp = path.index(i);
      String name = job.path("name").asText("");
      if (name.isEmpty()) {
        errors.add(FieldError.required(jp.child("name"), "a replicatedJob name is required"));
      } else {
        errors.dnsLabel(jp.child("name"), name);
        if (!names.add(name)) {
          errors.add(FieldError.duplicate(jp.child("name"), name));
        }
      }
      if (job.path("replicas").isNumber() && job.path("replicas").asInt() < 0) {
        errors.add(
            FieldError.invalid(
                jp.child("replicas"),
                job.path("replicas").asInt(),
                "must be greater than or equal to 0"));
      }
      JsonNode template = job.path("template").path("spec").path("template");
      FieldPath tp = jp.child("template").child("spec").child("template");
      if (!template.isObject()) {
        errors.add(FieldError.required(tp, "a pod template is required"));
        continue;
      }
      PodTemplateSpec pod;
      try {
        pod = Serialization.jsonMapper().treeToValue(template, PodTemplateSpec.class);
      } catch (Exception e) {
        errors.add(FieldError.invalid(tp, "unreadable", "must be a pod template"));
        continue;
      }
      PodTemplateRules.validate(pod, tp, errors, podCount(job));
    }
  }

  /** A replicatedJob's pods as one podSet: replicas × min(parallelism, completions). */
  private static int podCount(JsonNode replicatedJob) {
    JsonNode spec = replicatedJob.path("template").path("spec");
    int parallelism = spec.path("parallelism").isNumber() ? spec.path("parallelism").asInt() : 1;
    int perJob =
        spec.path("completions").isNumber()
            ? Math.min(parallelism, spec.path("completions").asInt())
            : parallelism;
    return (replicatedJob.path("replicas").isNumber() ? replicatedJob.path("replicas").asInt() : 1)
        * perJob;
  }
}
