package dev.berth.e2e;

import dev.berth.api.v1beta1.Berth;
import dev.berth.api.v1beta1.ClusterQueue;
import dev.berth.api.v1beta1.ClusterQueueSpec;
import dev.berth.api.v1beta1.FlavorQuotas;
import dev.berth.api.v1beta1.LocalQueue;
import dev.berth.api.v1beta1.LocalQueueSpec;
import dev.berth.api.v1beta1.ResourceFlavor;
import dev.berth.api.v1beta1.ResourceFlavorSpec;
import dev.berth.api.v1beta1.ResourceGroup;
import dev.berth.api.v1beta1.ResourceQuota;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import java.util.List;
import java.util.Map;

/** Fluent-enough builders for the objects scenarios create. */
final class ScenarioObjects {
  private ScenarioObjects() {}

  static ResourceFlavor flavor(String name, Map<String, String> nodeLabels) {
    ResourceFlavor rf = new ResourceFlavor();
    rf.getMetadata().setName(name);
    rf.setSpec(new ResourceFlavorSpec());
    rf.getSpec().nodeLabels = nodeLabels;
    return rf;
  }

  /** A ClusterQueue with one resource group covering one resource on one flavor. */
  static ClusterQueue clusterQueue(String name, String flavor, String resource, String nominal) {
    ClusterQueue cq = new ClusterQueue();
    cq.getMetadata().setName(name);
    ClusterQueueSpec spec = new ClusterQueueSpec();
    spec.namespaceSelector = new LabelSelector();
    spec.resourceGroups =
        List.of(
            new ResourceGroup(
                List.of(resource),
                List.of(new FlavorQuotas(flavor, List.of(new ResourceQuota(resource, nominal))))));
    cq.setSpec(spec);
    return cq;
  }

  static ResourceQuota quota(ClusterQueue cq) {
    return cq.getSpec().resourceGroups.get(0).flavors.get(0).resources.get(0);
  }

  static LocalQueue localQueue(String namespace, String name, String clusterQueue) {
    LocalQueue lq = new LocalQueue();
    lq.getMetadata().setNamespace(namespace);
    lq.getMetadata().setName(name);
    lq.setSpec(new LocalQueueSpec(clusterQueue));
    return lq;
  }

  /** A suspended Job of {@code pods} pods, each requesting {@code cpu}, in queue {@code queue}. */
  static Job job(String namespace, String name, String queue, int pods, String cpu) {
    return new JobBuilder()
        .withNewMetadata()
        .withNamespace(namespace)
        .withName(name)
        .addToLabels(Berth.QUEUE_NAME_LABEL, queue)
        .endMetadata()
        .withNewSpec()
        .withSuspend(true)
        .withParallelism(pods)
        .withCompletions(pods)
        .withNewTemplate()
        .withNewSpec()
        .withRestartPolicy("Never")
        .addNewContainer()
        .withName("main")
        .withImage("busybox")
        .withNewResources()
        .addToRequests("cpu", new Quantity(cpu))
        .endResources()
        .endContainer()
        .endSpec()
        .endTemplate()
        .endSpec()
        .build();
  }
}
