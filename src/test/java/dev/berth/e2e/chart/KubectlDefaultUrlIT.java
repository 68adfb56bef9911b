package dev.berth.e2e.chart;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.berth.kubectl.ChartDefaults;
import dev.berth.operator.config.Configuration;
import dev.berth.operator.config.ConfigurationLoader;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import java.net.URI;
import java.util.List;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.Test;

/**
 * {@code kubectl berth}'s default visibility URL names what the chart installs as the docs say: its
 * Service, in its namespace, on the Service's HTTPS port, with a host name the webhook's serving
 * certificate covers (the operator signs it for {@code internalCertManagement.webhookServiceName}).
 */
class KubectlDefaultUrlIT {

  @Test
  void theDefaultUrlIsTheChartsServiceAndHttpsPort() {
    List<GenericKubernetesResource> objects =
        Manifests.parse(HelmCli.template(ChartDefaults.RELEASE, ChartDefaults.NAMESPACE));
    JsonNode service = Manifests.json(Manifests.one(objects, "Service"));
    URI url = URI.create(ChartDefaults.VISIBILITY_URL);

    assertThat(url.getScheme()).isEqualTo("https");
    assertThat(url.getHost())
        .isEqualTo(
            service.at("/metadata/name").asText()
                + "."
                + service.at("/metadata/namespace").asText()
                + ".svc");
    JsonNode https =
        StreamSupport.stream(service.at("/spec/ports").spliterator(), false)
            .filter(p -> p.path("name").asText().equals("https"))
            .findFirst()
            .orElseThrow();
    assertThat(url.getPort()).isEqualTo(https.path("port").asInt());

    // The serving certificate's SANs come from internalCertManagement.webhookServiceName: the
    // same Service.
    JsonNode container =
        Manifests.json(Manifests.one(objects, "Deployment")).at("/spec/template/spec/containers/0");
    Configuration config =
        ConfigurationLoader.load(
            Manifests.json(Manifests.named(objects, "ConfigMap", "berth-config").orElseThrow())
                .at("/data/config.yaml")
                .asText(),
            java.util.Map.of());
    assertThat(config.internalCertManagement().webhookServiceName())
        .isEqualTo(service.at("/metadata/name").asText());
    // The container port the Service's https port targets is the one the operator listens on.
    JsonNode containerPort =
        StreamSupport.stream(container.path("ports").spliterator(), false)
            .filter(p -> p.path("name").asText().equals(https.path("targetPort").asText()))
            .findFirst()
            .orElseThrow();
    assertThat(containerPort.path("containerPort").asText())
        .isEqualTo(String.valueOf(config.visibility().port()));
  }
}
