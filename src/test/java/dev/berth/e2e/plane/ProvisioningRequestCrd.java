package dev.berth.e2e.plane;

import dev.berth.local.EmbeddedApiServer;
import dev.berth.operator.provisioning.ProvisioningRequest;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaProps;
import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaPropsBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * The cluster autoscaler's ProvisioningRequest CRD for the tests: the upstream file from
 * ../shared/third-party/crds/ (or $BERTH_THIRD_PARTY/crds/), as a user's cluster gets it from
 * cluster-autoscaler. Where that is absent, a <b>stand-in</b> CRD built here from the fields Berth
 * writes and reads (spec.provisioningClassName, parameters, podSets[count, podTemplateRef.name],
 * status.conditions), and the run says so: the upstream schema's own rules (immutability, bounds)
 * are then not tested.
 */
public final class ProvisioningRequestCrd {
  static final String FILE = "crds/autoscaling.x-k8s.io_provisioningrequests.yaml";

  private ProvisioningRequestCrd() {}

  /** Where the upstream CRD is looked for. */
  public static Path upstream() {
    return ThirdParty.dir().resolve(FILE);
  }

  /** Installs the upstream CRD, or the stand-in; returns whether it was the upstream one. */
  public static boolean install(KubernetesClient client) {
    Path file = upstream();
    boolean real = Files.isRegularFile(file);
    CustomResourceDefinition crd;
    if (real) {
      crd = read(file);
    } else {
      ThirdParty.standInAllowed(
          ThirdParty.present(),
          false,
          "the upstream ProvisioningRequest CRD (" + FILE + ")",
          "put cluster-autoscaler's CRD at " + file);
      System.out.println(
          "[berth-test] no upstream ProvisioningRequest CRD at "
              + file
              + " (set BERTH_THIRD_PARTY): using the suite's stand-in CRD, ProvisioningRequestCrd");
      crd = standIn();
    }
    EmbeddedApiServer.install(client, List.of(crd));
    return real;
  }

  /**
   * The upstream CRD, checked to be the ProvisioningRequest CRD Berth uses: a file that does not
   * parse or defines something else fails the run rather than testing against nothing.
   */
  static CustomResourceDefinition read(Path file) {
    CustomResourceDefinition crd;
    try {
      crd = Serialization.unmarshal(Files.readString(file), CustomResourceDefinition.class);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (RuntimeException e) {
      throw new IllegalStateException(file + " is not a CustomResourceDefinition: " + e, e);
    }
    String expected = ProvisioningRequest.CRD;
    String version = HasMetadata.getVersion(ProvisioningRequest.class);
    if (crd == null
        || crd.getMetadata() == null
        || !expected.equals(crd.getMetadata().getName())
        || crd.getSpec() == null
        || crd.getSpec().getVersions() == null
        || crd.getSpec().getVersions().stream()
            .noneMatch(v -> version.equals(v.getName()) && Boolean.TRUE.equals(v.getServed()))) {
      throw new IllegalStateException(
          file + " does not define " + expected + " serving " + version);
    }
    return crd;
  }

  /** The stand-in: the same group, version, kind and scope, with a status subresource. */
  static CustomResourceDefinition standIn() {
    JSONSchemaProps string = new JSONSchemaPropsBuilder().withType("string").build();
    JSONSchemaProps podSet =
        new JSONSchemaPropsBuilder()
            .withType("object")
            .withRequired("count", "podTemplateRef")
            .addToProperties(
                "count", new JSONSchemaPropsBuilder().withType("integer").withMinimum(1.0).build())
            .addToProperties(
                "podTemplateRef",
                new JSONSchemaPropsBuilder()
                    .withType("object")
                    .withRequired("name")
                    .addToProperties("name", string)
                    .build())
            .build();
    JSONSchemaProps spec =
        new JSONSchemaPropsBuilder()
            .withType("object")
            .withRequired("podSets", "provisioningClassName")
            .addToProperties("provisioningClassName", string)
            .addToProperties(
                "parameters",
                new JSONSchemaPropsBuilder()
                    .withType("object")
                    .withNewAdditionalProperties()
                    .withSchema(string)
                    .endAdditionalProperties()
                    .build())
            .addToProperties(
                "podSets",
                new JSONSchemaPropsBuilder()
                    .withType("array")
                    .withMinItems(1L)
                    .withMaxItems(32L)
                    .withNewItems()
                    .withSchema(podSet)
                    .endItems()
                    .build())
            .build();
    JSONSchemaProps status =
        new JSONSchemaPropsBuilder()
            .withType("object")
            .withXKubernetesPreserveUnknownFields(true)
            .build();
    return new CustomResourceDefinitionBuilder()
        .withNewMetadata()
        .withName(ProvisioningRequest.CRD)
        .endMetadata()
        .withNewSpec()
        .withGroup(ProvisioningRequest.GROUP)
        .withScope("Namespaced")
        .withNewNames()
        .withKind("ProvisioningRequest")
        .withPlural("provisioningrequests")
        .withSingular("provisioningrequest")
        .withListKind("ProvisioningRequestList")
        .endNames()
        .addNewVersion()
        .withName("v1")
        .withServed(true)
        .withStorage(true)
        .withNewSubresources()
        .withNewStatus()
        .endStatus()
        .endSubresources()
        .withNewSchema()
        .withOpenAPIV3Schema(
            new JSONSchemaPropsBuilder()
                .withType("object")
                .withProperties(Map.of("spec", spec, "status", status))
                .build())
        .endSchema()
        .endVersion()
        .endSpec()
        .build();
  }
}
