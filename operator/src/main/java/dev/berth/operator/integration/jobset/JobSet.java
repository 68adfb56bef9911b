package dev.berth.operator.integration.jobset;

import dev.berth.operator.integration.OpenObject;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.api.model.batch.v1.JobTemplateSpec;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.Version;
import java.util.List;
import java.util.Map;

/**
 * The parts of a jobset.x-k8s.io/v1alpha2 JobSet that admission reads and writes. Every field Berth
 * does not model is kept as it came, so an update never drops what the JobSet's owner wrote.
 */
@Group("jobset.x-k8s.io")
@Version("v1alpha2")
@Kind("JobSet")
@Plural("jobsets")
public class JobSet extends CustomResource<JobSet.Spec, JobSet.Status> implements Namespaced {

  /** Keeps unknown fields of a JSON object. */
  public abstract static class Open extends OpenObject {}

  /** spec: suspend and the replicated Jobs. */
  public static class Spec extends Open {
    public Boolean suspend;
    public List<ReplicatedJob> replicatedJobs;
  }

  /** One group of identical Jobs. */
  public static class ReplicatedJob extends Open {
    public String name;
    public Integer replicas;
    public JobTemplateSpec template;
  }

  /** status: the JobSet's conditions (Completed, Failed) and its Jobs' counts. */
  public static class Status extends Open {
    public List<Map<String, Object>> conditions;
    public List<Map<String, Object>> replicatedJobsStatus;
  }
}
