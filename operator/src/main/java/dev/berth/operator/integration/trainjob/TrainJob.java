package dev.berth.operator.integration.trainjob;

import dev.berth.operator.integration.OpenObject;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.api.model.PodSchedulingGate;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.Version;
import java.util.List;
import java.util.Map;

/**
 * The parts of a Kubeflow Trainer trainer.kubeflow.org/v1alpha1 TrainJob (v2.0.0) that admission
 * reads and writes: its runtime, the overrides of it that change its pods (the trainer's node count
 * and resources, the pod spec overrides), its suspension and the Trainer's status. Every other
 * field is kept as it came.
 */
@Group("trainer.kubeflow.org")
@Version("v1alpha1")
@Kind("TrainJob")
@Plural("trainjobs")
public class TrainJob extends CustomResource<TrainJob.Spec, TrainJob.Status> implements Namespaced {

  /** Keeps unknown fields of a JSON object. */
  public abstract static class Open extends OpenObject {}

  /** spec: what Berth reads of a TrainJob. */
  public static class Spec extends Open {
    public RuntimeRef runtimeRef;
    public Trainer trainer;
    public List<PodSpecOverride> podSpecOverrides;
    public Boolean suspend;
  }

  /** The runtime it runs: a ClusterTrainingRuntime unless {@code kind} says TrainingRuntime. */
  public static class RuntimeRef extends Open {
    public String name;
    public String apiGroup;
    public String kind;
  }

  /** spec.trainer: what the Trainer overrides in its runtime's trainer replicatedJob. */
  public static class Trainer extends Open {
    public Integer numNodes;
    public ResourceRequirements resourcesPerNode;
  }

  /**
   * One of spec.podSpecOverrides: merged by the Trainer, in list order, into the pod template of
   * each replicatedJob it targets. The only way v2.0.0 lets anyone but the runtime's author place a
   * TrainJob's pods, so it is how Berth injects an admission's flavors.
   */
  public static class PodSpecOverride extends Open {
    public List<TargetJob> targetJobs;
    public Map<String, String> nodeSelector;
    public List<Toleration> tolerations;
    public List<PodSchedulingGate> schedulingGates;
  }

  /** A replicatedJob an override applies to. */
  public static class TargetJob extends Open {
    public String name;
  }

  /** status: the Trainer's conditions (Suspended, Complete, Failed) and its Jobs' counts. */
  public static class Status extends Open {
    public List<Map<String, Object>> conditions;
    public List<Map<String, Object>> jobsStatus;
  }
}
