package dev.berth.webhook.validation;

import dev.berth.api.v1beta1.Berth;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import java.util.List;

/**
 * A batch/v1 Job as Berth sees it. Unmanaged Jobs pass untouched; the Job API validates the rest of
 * a Job before this runs.
 */
public final class JobValidator {
  private static final String KIND = "Job";

  private JobValidator() {}

  public static List<FieldError> validate(Job job) {
    Errors errors = new Errors();
    JobView view = JobView.of(job);
    if (!view.managed()) {
      return errors.toList();
    }
    ManagedJobRules.validateLabels(view, errors);
    checkMinParallelism(job, view, errors);
    checkMaxExecTime(job.getMetadata().getLabels(), errors);
    if (job.getSpec() != null && job.getSpec().getTemplate() != null) {
      PodTemplateRules.validate(
          job.getSpec().getTemplate(),
          FieldPath.root("spec").child("template"),
          errors,
          podCount(job));
    }
    return errors.toList();
  }

  public static List<FieldError> validateUpdate(Job old, Job job) {
    Errors errors = new Errors();
    errors.addAll(validate(job));
    ManagedJobRules.validateQueueUnchangedWhileRunning(
        JobView.of(old), JobView.of(job), KIND, errors);
    return errors.toList();
  }

  /** berth.dev/max-exec-time-seconds: a whole number of seconds, at least 1. */
  static void checkMaxExecTime(java.util.Map<String, String> labels, Errors errors) {
    String value = labels == null ? null : labels.get(Berth.MAX_EXEC_TIME_LABEL);
    if (value == null) {
      return;
    }
    FieldPath path = FieldPath.root("metadata").child("labels").key(Berth.MAX_EXEC_TIME_LABEL);
    try {
      if (Integer.parseInt(value.trim()) >= 1) {
        return;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    errors.add(FieldError.invalid(path, value, "must be a whole number of seconds, at least 1"));
  }

  private static void checkMinParallelism(Job job, JobView view, Errors errors) {
    String value = view.annotations().get(Berth.JOB_MIN_PARALLELISM_ANNOTATION);
    if (value == null) {
      return;
    }
    FieldPath path =
        FieldPath.root("metadata").child("annotations").key(Berth.JOB_MIN_PARALLELISM_ANNOTATION);
    Integer parallelism = job.getSpec() == null ? null : job.getSpec().getParallelism();
    int max = parallelism == null ? 1 : parallelism;
    int min;
    try {
      min = Integer.parseInt(value.trim());
    } catch (NumberFormatException e) {
      errors.add(FieldError.invalid(path, value, "must be an integer"));
      return;
    }
    if (min < 1 || min > max) {
      errors.add(
          FieldError.invalid(
              path, value, "must be between 1 and the Job's parallelism (" + max + ")"));
    }
  }

  /**
   * The pods the Job runs at once, as the operator counts its podSet: min(parallelism,
   * completions).
   */
  private static int podCount(Job job) {
    Integer parallelism = job.getSpec().getParallelism();
    Integer completions = job.getSpec().getCompletions();
    int p = parallelism == null ? 1 : parallelism;
    return completions == null ? p : Math.min(p, completions);
  }
}
