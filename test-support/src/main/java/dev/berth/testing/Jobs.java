package dev.berth.testing;

import dev.berth.api.v1beta1.Berth;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobSpec;
import java.util.LinkedHashMap;

/**
 * A batch/v1 Job as a team submits it: suspended, in a LocalQueue, one container per pod: {@code
 * Jobs.named("train").in("team").queue("lq").parallelism(2).request("cpu", "1")}. An extended
 * resource requested (nvidia.com/gpu) is also set as its limit, as the API server requires.
 */
public final class Jobs {
  private final Job job = new Job();
  private final ResourceRequirements resources = new ResourceRequirements();
  private final ContainerBuilder container = new ContainerBuilder().withName("main");

  private Jobs(String name) {
    ObjectMeta meta = new ObjectMeta();
    meta.setName(name);
    job.setMetadata(meta);
    JobSpec spec = new JobSpec();
    spec.setSuspend(true);
    spec.setParallelism(1);
    spec.setCompletions(1);
    PodTemplateSpec template = new PodTemplateSpec();
    template.setMetadata(new ObjectMeta());
    template.setSpec(new io.fabric8.kubernetes.api.model.PodSpec());
    template.getSpec().setRestartPolicy("Never");
    spec.setTemplate(template);
    job.setSpec(spec);
    container.withImage("busybox");
  }

  public static Jobs named(String name) {
    return new Jobs(name);
  }

  public Jobs in(String namespace) {
    job.getMetadata().setNamespace(namespace);
    return this;
  }

  public Jobs uid(String uid) {
    job.getMetadata().setUid(uid);
    return this;
  }

  public Jobs queue(String localQueue) {
    return label(Berth.QUEUE_NAME_LABEL, localQueue);
  }

  /** A WorkloadPriorityClass, by the label Berth reads. */
  public Jobs priorityClass(String name) {
    return label(Berth.PRIORITY_CLASS_LABEL, name);
  }

  public Jobs label(String key, String value) {
    if (job.getMetadata().getLabels() == null) {
      job.getMetadata().setLabels(new LinkedHashMap<>());
    }
    job.getMetadata().getLabels().put(key, value);
    return this;
  }

  public Jobs annotation(String key, String value) {
    if (job.getMetadata().getAnnotations() == null) {
      job.getMetadata().setAnnotations(new LinkedHashMap<>());
    }
    job.getMetadata().getAnnotations().put(key, value);
    return this;
  }

  /** An annotation of the pod template (Berth's topology requests, KWOK's run-for). */
  public Jobs podAnnotation(String key, String value) {
    ObjectMeta meta = job.getSpec().getTemplate().getMetadata();
    if (meta.getAnnotations() == null) {
      meta.setAnnotations(new LinkedHashMap<>());
    }
    meta.getAnnotations().put(key, value);
    return this;
  }

  public Jobs nodeSelector(String key, String value) {
    var spec = job.getSpec().getTemplate().getSpec();
    if (spec.getNodeSelector() == null) {
      spec.setNodeSelector(new LinkedHashMap<>());
    }
    spec.getNodeSelector().put(key, value);
    return this;
  }

  /** {@code pods} pods at once, all needed for completion. */
  public Jobs parallelism(int pods) {
    job.getSpec().setParallelism(pods);
    job.getSpec().setCompletions(pods);
    return this;
  }

  /** Completions apart from parallelism; null for a work queue. */
  public Jobs completions(Integer completions) {
    job.getSpec().setCompletions(completions);
    return this;
  }

  public Jobs suspended(boolean suspended) {
    job.getSpec().setSuspend(suspended);
    return this;
  }

  public Jobs image(String image) {
    container.withImage(image);
    return this;
  }

  /** A request of each pod; an extended resource (a name with a domain) gets the same limit. */
  public Jobs request(String resource, String amount) {
    if (resources.getRequests() == null) {
      resources.setRequests(new LinkedHashMap<>());
    }
    resources.getRequests().put(resource, new Quantity(amount));
    if (resource.contains("/") && !resource.startsWith("kubernetes.io/")) {
      limit(resource, amount);
    }
    return this;
  }

  public Jobs limit(String resource, String amount) {
    if (resources.getLimits() == null) {
      resources.setLimits(new LinkedHashMap<>());
    }
    resources.getLimits().put(resource, new Quantity(amount));
    return this;
  }

  public Job build() {
    job.getSpec()
        .getTemplate()
        .getSpec()
        .setContainers(java.util.List.of(container.withResources(resources).build()));
    return job;
  }
}
