package dev.berth.webhook.validation;

import com.fasterxml.jackson.databind.JsonNode;
import dev.berth.api.v1beta1.Berth;
import dev.berth.webhook.integration.Framework;
import java.util.Iterator;
import java.util.List;
import java.util.Set;

/**
 * The pod sets of a running Job, JobSet, RayJob, RayCluster or training operator job are what its
 * Workload was admitted with: how many pods (parallelism, completions, replicas, and for a Job the
 * min-parallelism and original-parallelism annotations) and what each asks for (the pod template,
 * requests included). A change while it runs would use quota the Workload does not hold (growing)
 * or keep quota nobody uses (shrinking), so both are refused; Kueue stops such a Job instead.
 */
final class PodSetChanges {
  private static final FieldPath SPEC = FieldPath.root("spec");

  /**
   * Fields whose children are map keys, written {@code requests[nvidia.com/gpu]} as kubectl does.
   */
  private static final Set<String> MAPS =
      Set.of("labels", "annotations", "nodeSelector", "requests", "limits", "overhead");

  /** Enough paths to say what changed without drowning the message. */
  private static final int MAX_REPORTED = 4;

  private PodSetChanges() {}

  /**
   * The kind's resize rule: what of a running object its Workload's pod sets were made from, one
   * error per changed field. A switch over the registry, so that a kind added to it without its
   * rule does not compile.
   */
  static List<FieldError> of(Framework framework, JsonNode old, JsonNode now, String why) {
    return switch (framework) {
      case BATCH_JOB -> ofJob(old, now, why);
      case JOBSET -> ofJobSet(old, now, why);
      case PYTORCHJOB, MPIJOB ->
          ofReplicaSpecs(KubeflowJobValidator.replicaSpecsField(framework), old, now, why);
      case RAYCLUSTER -> ofRayCluster(old.path("spec"), now.path("spec"), SPEC, why);
      case RAYJOB -> ofRayJob(old, now, why);
      case TRAINJOB -> ofTrainJob(old, now, why);
      // A pod's containers are the API server's to keep (resizing is pods/resize, not edit's),
      // and its placement PodGateGuard's: never reached, pods have their own handler.
      // A Deployment or StatefulSet has no Workload of its own (its pods have), and a pod's
      // requests cannot change; ServingQueueRule holds a StatefulSet's size, and
      // LeaderWorkerSetQueueRule a LeaderWorkerSet's group size and requests. Never reached either.
      case POD, DEPLOYMENT, STATEFULSET, LEADERWORKERSET -> List.of();
    };
  }

  /** Changes of a batch/v1 Job's pod set, one error per changed field. */
  static List<FieldError> ofJob(JsonNode old, JsonNode job, String why) {
    Errors errors = new Errors();
    JsonNode before = old.path("spec");
    JsonNode after = job.path("spec");
    for (String count : List.of("parallelism", "completions")) {
      compareValue(before.path(count), after.path(count), SPEC.child(count), why, errors);
    }
    // The Workload's minCount and its pod count under partial admission come from these.
    FieldPath annotations = FieldPath.root("metadata").child("annotations");
    for (String key :
        List.of(Berth.JOB_MIN_PARALLELISM_ANNOTATION, Berth.ORIGINAL_PARALLELISM_ANNOTATION)) {
      compareValue(
          old.path("metadata").path("annotations").path(key),
          job.path("metadata").path("annotations").path(key),
          annotations.key(key),
          why,
          errors);
    }
    compareTree(
        before.path("template"),
        after.path("template"),
        SPEC.child("template"),
        why,
        errors,
        new int[] {0});
    return errors.toList();
  }

  /** Changes of a JobSet's pod sets: its replicatedJobs, their replicas, counts and templates. */
  static List<FieldError> ofJobSet(JsonNode old, JsonNode jobSet, String why) {
    Errors errors = new Errors();
    JsonNode before = old.path("spec").path("replicatedJobs");
    JsonNode after = jobSet.path("spec").path("replicatedJobs");
    FieldPath path = SPEC.child("replicatedJobs");
    if (before.size() != after.size()) {
      errors.add(FieldError.forbidden(path, "replicatedJobs cannot be added or removed: " + why));
      return errors.toList();
    }
    int[] reported = {0};
    for (int i = 0; i < before.size(); i++) {
      JsonNode b = before.get(i);
      JsonNode a = after.get(i);
      FieldPath rj = path.index(i);
      compareValue(b.path("name"), a.path("name"), rj.child("name"), why, errors);
      compareValue(b.path("replicas"), a.path("replicas"), rj.child("replicas"), why, errors);
      FieldPath jobSpec = rj.child("template").child("spec");
      for (String count : List.of("parallelism", "completions")) {
        compareValue(
            b.at("/template/spec/" + count),
            a.at("/template/spec/" + count),
            jobSpec.child(count),
            why,
            errors);
      }
      compareTree(
          b.at("/template/spec/template"),
          a.at("/template/spec/template"),
          jobSpec.child("template"),
          why,
          errors,
          reported);
    }
    return errors.toList();
  }

  /**
   * Changes of a training operator v1 job's pod sets: its replica types, their replicas and pod
   * templates ({@code field} holds them by type). Its Worker replicas can also be written through
   * the {@code scale} subresource, which the chart's webhook does not intercept: the chart's roles
   * grant no one that subresource, and the operator suspends and requeues a job resized anyway.
   */
  static List<FieldError> ofReplicaSpecs(String field, JsonNode old, JsonNode job, String why) {
    Errors errors = new Errors();
    JsonNode before = old.path("spec").path(field);
    JsonNode after = job.path("spec").path(field);
    FieldPath path = SPEC.child(field);
    Set<String> types = new java.util.TreeSet<>();
    before.fieldNames().forEachRemaining(types::add);
    after.fieldNames().forEachRemaining(types::add);
    int[] reported = {0};
    for (String type : types) {
      FieldPath tp = path.key(type);
      if (before.path(type).isMissingNode() || after.path(type).isMissingNode()) {
        errors.add(FieldError.forbidden(tp, "replica types cannot be added or removed: " + why));
        continue;
      }
      compareValue(
          before.path(type).path("replicas"),
          after.path(type).path("replicas"),
          tp.child("replicas"),
          why,
          errors);
      compareTree(
          before.path(type).path("template"),
          after.path(type).path("template"),
          tp.child("template"),
          why,
          errors,
          reported);
    }
    return errors.toList();
  }

  /**
   * Changes of a Ray cluster's pod sets (a RayCluster's spec, or a RayJob's rayClusterSpec at
   * {@code path}): its autoscaling, the head's template, its worker groups, their counts and
   * templates.
   */
  static List<FieldError> ofRayCluster(
      JsonNode before, JsonNode after, FieldPath path, String why) {
    Errors errors = new Errors();
    int[] reported = {0};
    compareValue(
        before.path("enableInTreeAutoscaling"),
        after.path("enableInTreeAutoscaling"),
        path.child("enableInTreeAutoscaling"),
        why,
        errors);
    compareTree(
        before.at("/headGroupSpec/template"),
        after.at("/headGroupSpec/template"),
        path.child("headGroupSpec").child("template"),
        why,
        errors,
        reported);
    JsonNode groupsBefore = before.path("workerGroupSpecs");
    JsonNode groupsAfter = after.path("workerGroupSpecs");
    FieldPath groups = path.child("workerGroupSpecs");
    if (groupsBefore.size() != groupsAfter.size()) {
      errors.add(FieldError.forbidden(groups, "worker groups cannot be added or removed: " + why));
      return errors.toList();
    }
    for (int i = 0; i < groupsBefore.size(); i++) {
      JsonNode b = groupsBefore.get(i);
      JsonNode a = groupsAfter.get(i);
      FieldPath g = groups.index(i);
      for (String field : List.of("groupName", "replicas", "numOfHosts")) {
        compareValue(b.path(field), a.path(field), g.child(field), why, errors);
      }
      compareTree(
          b.path("template"), a.path("template"), g.child("template"), why, errors, reported);
    }
    return errors.toList();
  }

  /**
   * Changes of a TrainJob's pod sets: the runtime they come from and every override of it the
   * Trainer applies to the JobSet it makes (the trainer's node count, resources and container, the
   * initializers', the pod spec overrides). Labels and annotations the Trainer copies to the JobSet
   * only, not to its pods, are free.
   */
  static List<FieldError> ofTrainJob(JsonNode old, JsonNode job, String why) {
    Errors errors = new Errors();
    int[] reported = {0};
    for (String field : List.of("runtimeRef", "trainer", "initializer", "podSpecOverrides")) {
      compareTree(
          old.path("spec").path(field),
          job.path("spec").path(field),
          SPEC.child(field),
          why,
          errors,
          reported);
    }
    return errors.toList();
  }

  /** Changes of a RayJob's pod sets: its cluster's, its submission mode and submitter template. */
  static List<FieldError> ofRayJob(JsonNode old, JsonNode job, String why) {
    Errors errors = new Errors();
    JsonNode before = old.path("spec");
    JsonNode after = job.path("spec");
    errors.addAll(
        ofRayCluster(
            before.path("rayClusterSpec"),
            after.path("rayClusterSpec"),
            SPEC.child("rayClusterSpec"),
            why));
    compareValue(
        before.path("submissionMode"),
        after.path("submissionMode"),
        SPEC.child("submissionMode"),
        why,
        errors);
    compareTree(
        before.path("submitterPodTemplate"),
        after.path("submitterPodTemplate"),
        SPEC.child("submitterPodTemplate"),
        why,
        errors,
        new int[] {0});
    return errors.toList();
  }

  private static void compareValue(
      JsonNode before, JsonNode after, FieldPath path, String why, Errors errors) {
    if (!same(before, after)) {
      errors.add(
          FieldError.forbidden(
              path, "cannot change from " + render(before) + " to " + render(after) + ": " + why));
    }
  }

  /** Reports the deepest fields that differ, e.g. spec.template.spec.containers[0].image. */
  private static void compareTree(
      JsonNode before, JsonNode after, FieldPath path, String why, Errors errors, int[] reported) {
    if (same(before, after) || reported[0] >= MAX_REPORTED) {
      return;
    }
    if (before.isObject() && after.isObject()) {
      boolean keys = MAPS.contains(lastSegment(path));
      for (Iterator<String> it = union(before, after); it.hasNext(); ) {
        String name = it.next();
        compareTree(
            before.path(name),
            after.path(name),
            keys ? path.key(name) : path.child(name),
            why,
            errors,
            reported);
      }
      return;
    }
    if (before.isArray() && after.isArray() && before.size() == after.size()) {
      for (int i = 0; i < before.size(); i++) {
        compareTree(before.get(i), after.get(i), path.index(i), why, errors, reported);
      }
      return;
    }
    reported[0]++;
    errors.add(FieldError.forbidden(path, "cannot change: " + why));
  }

  private static Iterator<String> union(JsonNode a, JsonNode b) {
    Set<String> names = new java.util.TreeSet<>();
    a.fieldNames().forEachRemaining(names::add);
    b.fieldNames().forEachRemaining(names::add);
    return names.iterator();
  }

  private static String lastSegment(FieldPath path) {
    String p = path.toString();
    return p.substring(p.lastIndexOf('.') + 1);
  }

  /** Missing and null are the same absence; numbers compare by value (2 and 2.0). */
  private static boolean same(JsonNode a, JsonNode b) {
    boolean absentA = a.isMissingNode() || a.isNull();
    boolean absentB = b.isMissingNode() || b.isNull();
    if (absentA || absentB) {
      return absentA && absentB;
    }
    if (a.isNumber() && b.isNumber()) {
      return a.decimalValue().compareTo(b.decimalValue()) == 0;
    }
    return a.equals(b);
  }

  private static String render(JsonNode value) {
    return value.isMissingNode() || value.isNull() ? "unset" : value.toString();
  }
}
