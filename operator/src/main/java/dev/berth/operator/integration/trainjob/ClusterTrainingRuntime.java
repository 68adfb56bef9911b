package dev.berth.operator.integration.trainjob;

import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.Version;

/** A cluster-wide Kubeflow Trainer runtime, read only: a TrainJob's pods come from it. */
@Group("trainer.kubeflow.org")
@Version("v1alpha1")
@Kind("ClusterTrainingRuntime")
@Plural("clustertrainingruntimes")
public class ClusterTrainingRuntime extends CustomResource<RuntimeSpec, Void> {}
