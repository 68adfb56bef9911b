package dev.berth.webhook.mutation;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.berth.webhook.integration.Framework;
import dev.berth.webhook.validation.JobView;

/**
 * On create of a training operator v1 job (PyTorchJob, MPIJob): what every managed kind gets
 * ({@link ManagedJobDefaulter}, its {@code runPolicy.suspend} set), and {@code
 * runPolicy.cleanPodPolicy: Running} when it names none. The training operator's own default is
 * None, which leaves the pods still running when the job ends (an MPIJob's workers after its
 * launcher, a PyTorchJob's workers after its master) on GPUs whose quota the finished Workload has
 * given back; the validating webhook refuses None on a managed job.
 */
public final class KubeflowJobDefaulter implements Defaulter {
  private final Framework framework;
  private final ManagedJobDefaulter managed;

  public KubeflowJobDefaulter(LocalQueueLookup localQueues, Framework framework) {
    this.framework = framework;
    this.managed = new ManagedJobDefaulter(localQueues, framework);
  }

  @Override
  public void apply(ObjectNode job, String namespace) {
    managed.apply(job, namespace);
    if (!JobView.of(job, framework).managed()) {
      return;
    }
    ObjectNode spec = Json.object(job, "spec");
    ObjectNode runPolicy = spec == null ? null : Json.object(spec, "runPolicy");
    Json.defaultText(runPolicy, "cleanPodPolicy", "Running");
  }
}
