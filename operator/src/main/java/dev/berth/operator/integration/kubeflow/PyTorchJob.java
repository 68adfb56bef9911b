package dev.berth.operator.integration.kubeflow;

import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.Version;
import java.util.Map;

/** A kubeflow.org/v1 PyTorchJob of the training operator: replica types Master and Worker. */
@Group("kubeflow.org")
@Version("v1")
@Kind("PyTorchJob")
@Plural("pytorchjobs")
public class PyTorchJob extends CustomResource<PyTorchJob.Spec, KubeflowJob.Status>
    implements Namespaced {

  /** spec: its replica specs are {@code pytorchReplicaSpecs}. */
  public static class Spec extends KubeflowJob.Spec {
    public Map<String, KubeflowJob.ReplicaSpec> pytorchReplicaSpecs;

    @Override
    public Map<String, KubeflowJob.ReplicaSpec> replicaSpecs() {
      return pytorchReplicaSpecs;
    }
  }
}
