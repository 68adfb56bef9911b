package dev.berth.operator.integration.kubeflow;

import dev.berth.operator.integration.OpenObject;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import java.util.List;
import java.util.Map;

/**
 * The parts of the Kubeflow training operator's v1 jobs (kubeflow.org/v1 PyTorchJob, MPIJob) that
 * admission reads and writes, shared by every such kind: they differ only in the field that holds
 * their replica specs. Every field Berth does not model is kept as it came, so an update never
 * drops what the job's owner wrote.
 */
public final class KubeflowJob {
  private KubeflowJob() {}

  /** spec: the run policy, and the replica specs by replica type (in the kind's own field). */
  public abstract static class Spec extends OpenObject {
    public RunPolicy runPolicy;

    /** The replica specs by replica type (Master, Worker; Launcher, Worker); null when none. */
    public abstract Map<String, ReplicaSpec> replicaSpecs();
  }

  /** spec.runPolicy: whether the job is suspended (the rest kept as written). */
  public static class RunPolicy extends OpenObject {
    public Boolean suspend;
  }

  /** One replica type: how many pods, and their template. */
  public static class ReplicaSpec extends OpenObject {
    public Integer replicas;
    public PodTemplateSpec template;
  }

  /**
   * status: the job's conditions (Created, Running, Restarting, Succeeded, Suspended, Failed) and
   * each replica type's pod counts.
   */
  public static class Status extends OpenObject {
    public List<Map<String, Object>> conditions;
    public Map<String, Map<String, Object>> replicaStatuses;
  }
}
