package dev.berth.operator.integration.trainjob;

import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.Version;

/**
 * A Kubeflow Trainer runtime of one namespace, read only: the pods of the TrainJobs of that
 * namespace that name it come from it.
 */
@Group("trainer.kubeflow.org")
@Version("v1alpha1")
@Kind("TrainingRuntime")
@Plural("trainingruntimes")
public class TrainingRuntime extends CustomResource<RuntimeSpec, Void> implements Namespaced {}
