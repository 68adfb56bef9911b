package dev.berth.operator.integration.trainjob;

import dev.berth.operator.integration.OpenObject;
import dev.berth.operator.integration.jobset.JobSet;
import io.fabric8.kubernetes.api.model.ObjectMeta;

/**
 * The spec of a Kubeflow Trainer runtime (ClusterTrainingRuntime or TrainingRuntime), as much as a
 * TrainJob's pods depend on: the JobSet template its JobSet is made from, and the ML policy that
 * sets the trainer's node count.
 */
public class RuntimeSpec extends OpenObject {
  public Template template;
  public MlPolicy mlPolicy;

  /** spec.template: a JobSet's metadata and spec. */
  public static class Template extends OpenObject {
    public ObjectMeta metadata;
    public JobSet.Spec spec;
  }

  /** spec.mlPolicy: the default node count, and the framework (Torch, MPI, or neither). */
  public static class MlPolicy extends OpenObject {
    public Integer numNodes;
    public Object torch;
    public Mpi mpi;
  }

  /** spec.mlPolicy.mpi: whether the launcher is one of the nodes. */
  public static class Mpi extends OpenObject {
    public Boolean runLauncherAsNode;
  }
}
