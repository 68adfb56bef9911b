package dev.berth.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.berth.api.v1beta1.Workload;
import dev.berth.local.SimulatedNodes;
import dev.berth.operator.BerthOperator;
import io.fabric8.kubernetes.api.model.HasMetadata;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * samples/ applied as an admin would, with the operator running: every sample Job, the JobSet and
 * the RayJob is admitted in the ClusterQueue its LocalQueue names, on the flavors its comments
 * promise.
 */
class SamplesAdmissionIT {

  @Test
  void everySampleWorkloadIsAdmittedWhereItsCommentsSay() throws Exception {
    try (TestApiServer.Cluster cluster = TestApiServer.dedicated()) {
      var client = cluster.client();
      Namespaces.ensure(client, "berth-system");
      // The nodes local mode simulates: the H100 flavor places its gangs on Topology dc1.
      SimulatedNodes.apply(client);
      // KubeRay's API (local mode's stand-in CRDs), for the RayJob sample: admitted, not run.
      dev.berth.local.EmbeddedApiServer.install(
          client,
          java.util.List.of(
              dev.berth.local.EmbeddedApiServer.crd("local/rayjob-crd.yaml"),
              dev.berth.local.EmbeddedApiServer.crd("local/raycluster-crd.yaml")));
      BerthOperator operator = RunningOperator.startNew(cluster.kubeconfig(), false);
      try {
        List<Path> files;
        try (Stream<Path> list = Files.list(Path.of(System.getProperty("berth.repo"), "samples"))) {
          files = list.filter(p -> p.toString().endsWith(".yaml")).sorted().toList();
        }
        for (Path file : files) {
          try (InputStream in = Files.newInputStream(file)) {
            for (HasMetadata object : client.load(in).items()) {
              client.resource(object).serverSideApply();
            }
          }
        }
        // ClusterQueue per workload (from the LocalQueues in 08), and flavors it may land on.
        Map<String, String> clusterQueue =
            Map.of(
                "team-llm/llama-finetune", "team-llm",
                "team-vision/resnet-sweep", "team-vision",
                "team-research/ablation-study", "team-research",
                "team-research/eval-small", "shared-gpus",
                "team-llm/llm-pretrain", "team-llm",
                "team-vision/embeddings-backfill", "team-vision");
        await()
            .atMost(Duration.ofSeconds(60))
            .untilAsserted(
                () -> {
                  List<Workload> workloads =
                      client.resources(Workload.class).inAnyNamespace().list().getItems();
                  assertThat(workloads).hasSize(clusterQueue.size());
                  for (Workload wl : workloads) {
                    String owner =
                        wl.getMetadata().getNamespace()
                            + "/"
                            + wl.getMetadata().getOwnerReferences().get(0).getName();
                    assertThat(wl.getStatus()).as(owner).isNotNull();
                    assertThat(wl.getStatus().admission)
                        .as(
                            owner
                                + " admitted; conditions: "
                                + wl.getStatus().conditions.stream()
                                    .map(
                                        c ->
                                            c.type + "=" + c.status + " " + c.reason + ": "
                                                + c.message)
                                    .toList())
                        .isNotNull();
                    assertThat(wl.getStatus().admission.clusterQueue)
                        .as(owner)
                        .isEqualTo(clusterQueue.get(owner));
                  }
                });
        Workload mig =
            client.resources(Workload.class).inNamespace("team-research").list().getItems().stream()
                .filter(
                    w -> w.getMetadata().getOwnerReferences().get(0).getName().equals("eval-small"))
                .findFirst()
                .orElseThrow();
        // "can only be admitted on the a100-mig-1g flavor and never uses whole-GPU quota"
        assertThat(mig.getStatus().admission.podSetAssignments.get(0).flavors.values())
            .containsOnly("a100-mig-1g");
        assertThat(mig.getStatus().admission.podSetAssignments.get(0).resourceUsage)
            .doesNotContainKey("nvidia.com/gpu");
        // "All pods in one domain of this Topology level": both fine-tuning pods in one rack.
        Workload finetune =
            client.resources(Workload.class).inNamespace("team-llm").list().getItems().stream()
                .filter(
                    w ->
                        w.getMetadata()
                            .getOwnerReferences()
                            .get(0)
                            .getName()
                            .equals("llama-finetune"))
                .findFirst()
                .orElseThrow();
        var placed = finetune.getStatus().admission.podSetAssignments.get(0).topologyAssignment;
        assertThat(placed).isNotNull();
        assertThat(placed.domains.stream().mapToInt(d -> d.count).sum()).isEqualTo(2);
        assertThat(placed.domains.stream().map(d -> d.values.get(1)).distinct()).hasSize(1);
      } finally {
        operator.close();
      }
    }
  }
}
