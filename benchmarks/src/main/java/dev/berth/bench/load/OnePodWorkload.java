package dev.berth.bench.load;

import dev.berth.api.v1beta1.PodSet;
import dev.berth.api.v1beta1.Workload;
import dev.berth.api.v1beta1.WorkloadSpec;
import io.fabric8.kubernetes.api.model.PodTemplateSpecBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.List;

/**
 * The Workload the load benchmarks create: one podSet "main" of one pod asking for some cpu, in the
 * LocalQueue of the same name as its namespace (each ClusterQueue of a load has its own namespace
 * and LocalQueue). One shape for all of them, so that their figures compare.
 */
final class OnePodWorkload {
  private OnePodWorkload() {}

  static Workload of(String queue, String name, int priority, int cpu) {
    Workload wl = new Workload();
    wl.getMetadata().setNamespace(queue);
    wl.getMetadata().setName(name);
    WorkloadSpec spec = new WorkloadSpec();
    spec.queueName = queue;
    spec.priority = priority;
    spec.podSets =
        List.of(
            new PodSet(
                "main",
                1,
                new PodTemplateSpecBuilder()
                    .withNewSpec()
                    .withRestartPolicy("Never")
                    .addNewContainer()
                    .withName("main")
                    .withImage("busybox")
                    .withNewResources()
                    .addToRequests("cpu", new Quantity(Integer.toString(cpu)))
                    .endResources()
                    .endContainer()
                    .endSpec()
                    .build()));
    wl.setSpec(spec);
    return wl;
  }
}
