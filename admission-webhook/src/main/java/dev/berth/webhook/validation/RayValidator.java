package dev.berth.webhook.validation;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * KubeRay's RayJob and RayCluster (ray.io/v1), read as JSON. Berth turns a cluster into one
 * Workload of a podSet {@code head} and one per worker group, so a managed one must fit it: worker
 * groups with distinct DNS-label names other than {@code head}, at most 18 pod sets, countable pod
 * templates. And, as in Kueue: no in-tree autoscaling (the admitted size is what the cluster may
 * use; Berth has no elastic Workloads to grow it), and a RayJob creates its own cluster and deletes
 * it when it ends ({@code shutdownAfterJobFinishes}), or its cluster would hold the quota after it.
 * A RayJob submitted to an existing cluster ({@code clusterSelector}) is refused where Kueue lets
 * it run unqueued: its submitter pod would run outside any queue.
 */
public final class RayValidator {
  private static final FieldPath SPEC = FieldPath.root("spec");
  private static final String HEAD = "head";

  private RayValidator() {}

  public static List<FieldError> rayCluster(JsonNode cluster) {
    Errors errors = new Errors();
    JobView view = JobView.of(cluster);
    if (!view.managed()) {
      return errors.toList();
    }
    ManagedJobRules.validateLabels(view, errors);
    checkCluster(cluster.path("spec"), SPEC, errors);
    return errors.toList();
  }

  public static List<FieldError> rayClusterUpdate(JsonNode old, JsonNode cluster) {
    return withQueueFixed(old, cluster, "RayCluster", rayCluster(cluster));
  }

  public static List<FieldError> rayJob(JsonNode job) {
    Errors errors = new Errors();
    JobView view = JobView.of(job);
    if (!view.managed()) {
      return errors.toList();
    }
    ManagedJobRules.validateLabels(view, errors);
    JsonNode spec = job.path("spec");
    JsonNode selector = spec.path("clusterSelector");
    if (selector.isObject() && !selector.isEmpty()) {
      errors.add(
          FieldError.forbidden(
              SPEC.child("clusterSelector"),
              "a RayJob queued by Berth creates its own RayCluster (rayClusterSpec), which its"
                  + " Workload admits; submit to an existing RayCluster from inside it instead"));
      return errors.toList();
    }
    if (!spec.path("rayClusterSpec").isObject()) {
      errors.add(
          FieldError.required(
              SPEC.child("rayClusterSpec"),
              "a RayJob queued by Berth needs the RayCluster it runs on"));
      return errors.toList();
    }
    if (!spec.path("shutdownAfterJobFinishes").asBoolean(false)) {
      errors.add(
          FieldError.invalid(
              SPEC.child("shutdownAfterJobFinishes"),
              spec.path("shutdownAfterJobFinishes").asBoolean(false),
              "must be true for a RayJob queued by Berth: its RayCluster is deleted when it ends,"
                  + " so no pod holds nodes once its quota is given back"));
    }
    checkCluster(spec.path("rayClusterSpec"), SPEC.child("rayClusterSpec"), errors);
    JsonNode submitter = spec.path("submitterPodTemplate");
    if (submitter.isObject()) {
      checkTemplate(submitter, SPEC.child("submitterPodTemplate"), 1, errors);
    }
    return errors.toList();
  }

  public static List<FieldError> rayJobUpdate(JsonNode old, JsonNode job) {
    return withQueueFixed(old, job, "RayJob", rayJob(job));
  }

  private static List<FieldError> withQueueFixed(
      JsonNode old, JsonNode now, String kind, List<FieldError> objectErrors) {
    Errors errors = new Errors();
    errors.addAll(objectErrors);
    ManagedJobRules.validateQueueUnchangedWhileRunning(
        JobView.of(old), JobView.of(now), kind, errors);
    return errors.toList();
  }

  private static void checkCluster(JsonNode spec, FieldPath path, Errors errors) {
    if (spec.path("enableInTreeAutoscaling").asBoolean(false)) {
      errors.add(
          FieldError.invalid(
              path.child("enableInTreeAutoscaling"),
              true,
              "a RayCluster queued by Berth runs at the size its Workload was admitted for: the"
                  + " autoscaler would add pods no quota covers (docs/ray.md)"));
    }
    JsonNode head = spec.path("headGroupSpec").path("template");
    if (!head.isObject()) {
      errors.add(
          FieldError.required(
              path.child("headGroupSpec").child("template"), "a pod template is required"));
    } else {
      checkTemplate(head, path.child("headGroupSpec").child("template"), 1, errors);
    }
    JsonNode groups = spec.path("workerGroupSpecs");
    FieldPath gp = path.child("workerGroupSpecs");
    if (groups.size() + 1 > WorkloadValidator.MAX_POD_SETS) {
      errors.add(FieldError.tooMany(gp, groups.size() + 1, WorkloadValidator.MAX_POD_SETS));
    }
    Set<String> names = new HashSet<>();
    for (int i = 0; i < groups.size(); i++) {
      JsonNode group = groups.get(i);
      FieldPath p = gp.index(i);
      String name = group.path("groupName").asText("");
      if (name.isEmpty()) {
        errors.add(FieldError.required(p.child("groupName"), "a worker group name is required"));
      } else if (HEAD.equals(name)) {
        errors.add(
            FieldError.forbidden(
                p.child("groupName"), "\"head\" is the head's podSet; name the group otherwise"));
      } else {
        errors.dnsLabel(p.child("groupName"), name);
        if (!names.add(name)) {
          errors.add(FieldError.duplicate(p.child("groupName"), name));
        }
      }
      for (String count : List.of("replicas", "numOfHosts")) {
        if (group.path(count).isNumber() && group.path(count).asInt() < 0) {
          errors.add(
              FieldError.invalid(
                  p.child(count), group.path(count).asInt(), "must be greater than or equal to 0"));
        }
      }
      JsonNode template = group.path("template");
      if (!template.isObject()) {
        errors.add(FieldError.required(p.child("template"), "a pod template is required"));
      } else {
        checkTemplate(template, p.child("template"), workers(group), errors);
      }
    }
  }

  /** A worker group's pods: replicas × numOfHosts, each 1 when unset. */
  static int workers(JsonNode group) {
    int replicas = group.path("replicas").isNumber() ? group.path("replicas").asInt() : 1;
    int hosts = group.path("numOfHosts").isNumber() ? group.path("numOfHosts").asInt() : 1;
    return replicas * Math.max(1, hosts);
  }

  private static void checkTemplate(JsonNode template, FieldPath path, int pods, Errors errors) {
    PodTemplateSpec pod;
    try {
      pod = Serialization.jsonMapper().treeToValue(template, PodTemplateSpec.class);
    } catch (Exception e) {
      errors.add(FieldError.invalid(path, "unreadable", "must be a pod template"));
      return;
    }
    PodTemplateRules.validate(pod, path, errors, pods);
  }
}
