package dev.berth.api.crd;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceColumnDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaProps;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** What CrdFinisher adds to crd-generator-apt's output is really in the generated CRDs. */
class GeneratedCrdTest {
  private static final Path GENERATED = Path.of(System.getProperty("berth.crds.generated"));

  private static CustomResourceDefinition crd(String plural) throws IOException {
    return Serialization.unmarshal(
        Files.readString(GENERATED.resolve(plural + ".berth.dev-v1.yml")),
        CustomResourceDefinition.class);
  }

  private static JSONSchemaProps spec(CustomResourceDefinition crd) {
    return crd.getSpec()
        .getVersions()
        .get(0)
        .getSchema()
        .getOpenAPIV3Schema()
        .getProperties()
        .get("spec");
  }

  @Test
  void clusterQueueHasBoundsRulesAndColumns() throws IOException {
    CustomResourceDefinition cq = crd("clusterqueues");
    assertThat(cq.getSpec().getNames().getShortNames()).contains("cq");
    assertThat(cq.getSpec().getVersions().get(0).getAdditionalPrinterColumns())
        .extracting(CustomResourceColumnDefinition::getName)
        .containsSubsequence("Cohort", "Strategy", "Pending", "Admitted");
    JSONSchemaProps groups = spec(cq).getProperties().get("resourceGroups");
    assertThat(groups.getMaxItems()).isEqualTo(16L);
    JSONSchemaProps group = groups.getItems().getSchema();
    assertThat(group.getProperties().get("flavors").getMaxItems()).isEqualTo(64L);
    assertThat(group.getProperties().get("flavors").getMinItems()).isEqualTo(1L);
    assertThat(group.getProperties().get("flavors").getXKubernetesListMapKeys())
        .containsExactly("name");
    assertThat(group.getXKubernetesValidations())
        .anySatisfy(r -> assertThat(r.getMessage()).contains("same order"));
    assertThat(spec(cq).getXKubernetesValidations())
        .anySatisfy(r -> assertThat(r.getMessage()).contains("only allowed with a cohortName"));
  }

  @Test
  void workloadShowsAdmissionColumnsAndBoundsPodSets() throws IOException {
    CustomResourceDefinition wl = crd("workloads");
    assertThat(wl.getSpec().getVersions().get(0).getAdditionalPrinterColumns())
        .extracting(CustomResourceColumnDefinition::getJsonPath)
        .contains(
            ".spec.queueName",
            ".status.admission.clusterQueue",
            ".status.conditions[?(@.type==\"Admitted\")].status",
            ".status.conditions[?(@.type==\"Finished\")].status",
            ".metadata.creationTimestamp");
    JSONSchemaProps podSets = spec(wl).getProperties().get("podSets");
    assertThat(podSets.getMinItems()).isEqualTo(1L);
    assertThat(podSets.getMaxItems()).isEqualTo(18L);
    assertThat(wl.getSpec().getVersions().get(0).getSubresources().getStatus()).isNotNull();
  }

  @Test
  void localQueueClusterQueueIsImmutable() throws IOException {
    JSONSchemaProps clusterQueue = spec(crd("localqueues")).getProperties().get("clusterQueue");
    assertThat(clusterQueue.getXKubernetesValidations())
        .singleElement()
        .satisfies(r -> assertThat(r.getRule()).isEqualTo("self == oldSelf"));
    assertThat(spec(crd("localqueues")).getRequired()).contains("clusterQueue");
  }
}
