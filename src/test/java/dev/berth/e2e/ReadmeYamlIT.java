package dev.berth.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.berth.api.v1beta1.Berth;
import dev.berth.api.v1beta1.Workload;
import dev.berth.operator.BerthOperator;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Every YAML block of the README works as written: the whole objects are created, in the README's
 * order, on a real API server with the operator running, and the README's Job is admitted where the
 * README says; a block that is a fragment of a Job (it starts indented) is put into that Job and
 * must give the Workload what the README says it asks for.
 */
class ReadmeYamlIT {
  @Test
  void everyYamlBlockOfTheReadmeIsAcceptedAndItsJobAdmitted() throws Exception {
    List<ReadmeBlocks.Block> blocks = ReadmeBlocks.all();
    List<String> objects =
        blocks.stream().filter(b -> !b.isFragment()).map(ReadmeBlocks.Block::yaml).toList();
    List<String> fragments =
        blocks.stream()
            .filter(ReadmeBlocks.Block::isFragment)
            .map(ReadmeBlocks.Block::yaml)
            .toList();
    assertThat(objects).as("whole objects in the README").hasSizeGreaterThanOrEqualTo(5);
    try (TestApiServer.Cluster cluster = TestApiServer.dedicated()) {
      KubernetesClient client = cluster.client();
      Namespaces.ensure(client, "berth-system");
      BerthOperator operator = RunningOperator.startNew(cluster.kubeconfig(), false);
      try {
        Job job = null;
        for (String yaml : objects) {
          HasMetadata object = client.resource(yaml).item();
          // create(), not apply: a block that collides with another or is refused fails here.
          client.resource(object).create();
          if (object instanceof Job j) {
            job = j;
          }
        }
        assertThat(job).as("the README shows a Job").isNotNull();
        assertThat(sampleJobNames(client))
            .as("the README's Job is not one of the samples'")
            .doesNotContain(job.getMetadata().getNamespace() + "/" + job.getMetadata().getName());
        String namespace = job.getMetadata().getNamespace();
        String name = job.getMetadata().getName();
        Workload admitted =
            await()
                .atMost(Duration.ofSeconds(60))
                .until(
                    () -> workloadOf(client, namespace, name).orElse(null),
                    wl -> wl != null && wl.getStatus() != null && wl.getStatus().admission != null);
        assertThat(admitted.getStatus().admission.clusterQueue).isEqualTo("team-llm");
        assertThat(admitted.getStatus().admission.podSetAssignments.get(0).flavors)
            .containsValue("h100");
        await()
            .atMost(Duration.ofSeconds(30))
            .until(
                () ->
                    Boolean.FALSE.equals(
                        client
                            .batch()
                            .v1()
                            .jobs()
                            .inNamespace(namespace)
                            .withName(name)
                            .get()
                            .getSpec()
                            .getSuspend()));

        for (String fragment : fragments) {
          Job withFragment =
              ReadmeBlocks.withFragment(job, fragment, name + "-" + fragments.indexOf(fragment));
          client.resource(withFragment).create();
          String fragmentJob = withFragment.getMetadata().getName();
          Workload wl =
              await()
                  .atMost(Duration.ofSeconds(30))
                  .until(
                      () -> workloadOf(client, namespace, fragmentJob).orElse(null),
                      w -> w != null);
          Map<String, String> annotations =
              withFragment.getSpec().getTemplate().getMetadata().getAnnotations();
          assertThat(annotations)
              .as("the fragment names Berth's annotation")
              .containsKey(Berth.PODSET_REQUIRED_TOPOLOGY);
          assertThat(wl.getSpec().podSets.get(0).topologyRequest.required)
              .isEqualTo(annotations.get(Berth.PODSET_REQUIRED_TOPOLOGY));
        }
      } finally {
        operator.close();
      }
    }
  }

  private static List<String> sampleJobNames(KubernetesClient client) throws Exception {
    List<String> names = new ArrayList<>();
    try (var files = Files.list(Path.of(System.getProperty("berth.repo"), "samples"))) {
      for (Path file : files.filter(f -> f.toString().endsWith(".yaml")).toList()) {
        try (var in = Files.newInputStream(file)) {
          for (HasMetadata o : client.load(in).items()) {
            names.add(o.getMetadata().getNamespace() + "/" + o.getMetadata().getName());
          }
        }
      }
    }
    return names;
  }

  private static Optional<Workload> workloadOf(KubernetesClient client, String ns, String job) {
    return client.resources(Workload.class).inNamespace(ns).list().getItems().stream()
        .filter(
            wl ->
                wl.getMetadata().getOwnerReferences().stream()
                    .anyMatch(o -> "Job".equals(o.getKind()) && job.equals(o.getName())))
        .findFirst();
  }
}
