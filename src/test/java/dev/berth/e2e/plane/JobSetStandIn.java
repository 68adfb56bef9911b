package dev.berth.e2e.plane;

import dev.berth.operator.integration.jobset.JobSet;
import io.fabric8.kubernetes.api.model.DeletionPropagation;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.JobCondition;
import io.fabric8.kubernetes.api.model.batch.v1.JobStatus;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Consumer;

/**
 * A stand-in for the JobSet controller, for machines where scripts/jobset-binary.sh cannot build
 * the real one (no ../shared/third-party): it creates each replicatedJob's child Jobs while the
 * JobSet runs, suspends them when it is suspended and makes them again from the JobSet's template
 * when it resumes (the real controller updates them in place), counts them into
 * replicatedJobsStatus and marks the JobSet Completed once every child Job is Complete, or Failed
 * once one fails. No failure policy, success policy or startup order.
 */
public final class JobSetStandIn implements AutoCloseable {
  static final String JOBSET_NAME = "jobset.sigs.k8s.io/jobset-name";
  static final String REPLICATED_JOB = "jobset.sigs.k8s.io/replicatedjob-name";

  private final KubernetesClient client;
  private final ExecutorService worker =
      Executors.newSingleThreadExecutor(
          r -> {
            Thread t = new Thread(r, "jobset-stand-in");
            t.setDaemon(true);
            return t;
          });
  private final SharedIndexInformer<JobSet> jobSets;
  private final SharedIndexInformer<Job> jobs;

  private JobSetStandIn(KubernetesClient client) {
    this.client = client;
    this.jobSets =
        client
            .resources(JobSet.class)
            .inAnyNamespace()
            .inform(
                handler(
                    js -> enqueue(js.getMetadata().getNamespace(), js.getMetadata().getName())));
    this.jobs =
        client
            .batch()
            .v1()
            .jobs()
            .inAnyNamespace()
            .withLabel(JOBSET_NAME)
            .inform(
                handler(
                    job ->
                        enqueue(
                            job.getMetadata().getNamespace(),
                            job.getMetadata().getLabels().get(JOBSET_NAME))));
  }

  public static JobSetStandIn start(KubernetesClient client) {
    return new JobSetStandIn(client);
  }

  private static <T> ResourceEventHandler<T> handler(Consumer<T> onChange) {
    return new ResourceEventHandler<>() {
      @Override
      public void onAdd(T obj) {
        onChange.accept(obj);
      }

      @Override
      public void onUpdate(T oldObj, T newObj) {
        onChange.accept(newObj);
      }

      @Override
      public void onDelete(T obj, boolean deletedFinalStateUnknown) {
        onChange.accept(obj);
      }
    };
  }

  private void enqueue(String namespace, String name) {
    worker.submit(
        () -> {
          try {
            reconcile(namespace, name);
          } catch (KubernetesClientException conflictOrGone) {
            // The next event about the JobSet or one of its Jobs brings it back.
          }
        });
  }

  private void reconcile(String namespace, String name) {
    JobSet js = client.resources(JobSet.class).inNamespace(namespace).withName(name).get();
    if (js == null || finished(js)) {
      return;
    }
    boolean suspended = Boolean.TRUE.equals(js.getSpec().suspend);
    Map<String, Job> children = new HashMap<>();
    client
        .batch()
        .v1()
        .jobs()
        .inNamespace(namespace)
        .withLabel(JOBSET_NAME, name)
        .list()
        .getItems()
        .forEach(j -> children.put(j.getMetadata().getName(), j));
    List<Map<String, Object>> statuses = new ArrayList<>();
    int total = 0;
    int complete = 0;
    boolean failed = false;
    for (JobSet.ReplicatedJob rj : js.getSpec().replicatedJobs) {
      int replicas = rj.replicas == null ? 1 : rj.replicas;
      int active = 0;
      int succeeded = 0;
      int failedJobs = 0;
      for (int i = 0; i < replicas; i++) {
        String jobName = name + "-" + rj.name + "-" + i;
        Job child = children.get(jobName);
        boolean childSuspended = child != null && Boolean.TRUE.equals(child.getSpec().getSuspend());
        if (suspended && child != null && !childSuspended) {
          // As the real controller does: suspended, so the Job controller stops its pods and
          // counts them terminating until they have stopped.
          client
              .batch()
              .v1()
              .jobs()
              .inNamespace(namespace)
              .withName(jobName)
              .edit(
                  j -> {
                    j.getSpec().setSuspend(true);
                    return j;
                  });
        } else if (!suspended && child == null) {
          client.resource(childJob(js, rj, jobName)).create();
        } else if (!suspended && childSuspended) {
          // Resumed: made again from the JobSet's template, which admission has changed.
          client.resource(child).withPropagationPolicy(DeletionPropagation.BACKGROUND).delete();
        }
        if (child != null) {
          JobStatus st = child.getStatus() == null ? new JobStatus() : child.getStatus();
          active += st.getActive() != null && st.getActive() > 0 ? 1 : 0;
          succeeded += condition(st, "Complete") ? 1 : 0;
          failedJobs += condition(st, "Failed") ? 1 : 0;
        }
      }
      total += replicas;
      complete += succeeded;
      failed |= failedJobs > 0;
      Map<String, Object> status = new LinkedHashMap<>();
      status.put("name", rj.name);
      status.put("active", active);
      status.put("succeeded", succeeded);
      status.put("failed", failedJobs);
      statuses.add(status);
    }
    boolean done = !suspended && complete == total;
    boolean anyFailed = failed;
    client
        .resources(JobSet.class)
        .inNamespace(namespace)
        .withName(name)
        .editStatus(
            current -> {
              JobSet.Status status =
                  current.getStatus() == null ? new JobSet.Status() : current.getStatus();
              status.replicatedJobsStatus = statuses;
              if (done || anyFailed) {
                Map<String, Object> c = new LinkedHashMap<>();
                c.put("type", done ? "Completed" : "Failed");
                c.put("status", "True");
                c.put("reason", done ? "AllJobsCompleted" : "FailedJobs");
                c.put("message", done ? "jobset completed successfully" : "a child Job failed");
                c.put("lastTransitionTime", Instant.now().toString());
                status.conditions = List.of(c);
              }
              current.setStatus(status);
              return current;
            });
  }

  private static Job childJob(JobSet js, JobSet.ReplicatedJob rj, String jobName) {
    Map<String, String> labels =
        Map.of(JOBSET_NAME, js.getMetadata().getName(), REPLICATED_JOB, rj.name);
    Job job =
        new JobBuilder()
            .withNewMetadata()
            .withName(jobName)
            .withNamespace(js.getMetadata().getNamespace())
            .withLabels(labels)
            .withOwnerReferences(
                new OwnerReferenceBuilder()
                    .withApiVersion("jobset.x-k8s.io/v1alpha2")
                    .withKind("JobSet")
                    .withName(js.getMetadata().getName())
                    .withUid(js.getMetadata().getUid())
                    .withController(true)
                    .withBlockOwnerDeletion(true)
                    .build())
            .endMetadata()
            .withSpec(Serialization.clone(rj.template.getSpec()))
            .build();
    job.getSpec().setSuspend(false);
    var template = job.getSpec().getTemplate();
    if (template.getMetadata() == null) {
      template.setMetadata(new ObjectMeta());
    }
    Map<String, String> podLabels = new HashMap<>(labels);
    if (template.getMetadata().getLabels() != null) {
      podLabels.putAll(template.getMetadata().getLabels());
    }
    template.getMetadata().setLabels(podLabels);
    return job;
  }

  private static boolean finished(JobSet js) {
    return js.getStatus() != null
        && js.getStatus().conditions != null
        && js.getStatus().conditions.stream()
            .anyMatch(
                c ->
                    "True".equals(c.get("status"))
                        && ("Completed".equals(c.get("type")) || "Failed".equals(c.get("type"))));
  }

  private static boolean condition(JobStatus status, String type) {
    return status.getConditions() != null
        && status.getConditions().stream()
            .anyMatch((JobCondition c) -> type.equals(c.getType()) && "True".equals(c.getStatus()));
  }

  @Override
  public void close() {
    jobs.close();
    jobSets.close();
    worker.shutdownNow();
  }
}
