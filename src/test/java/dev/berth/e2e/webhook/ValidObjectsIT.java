package dev.berth.e2e.webhook;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.webhook.server.AdmissionAnswer;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Valid objects of every kind pass the webhooks, written by an ordinary user. */
class ValidObjectsIT {
  static final String NS = "webhook-valid";
  private static KubernetesClient client;

  @BeforeAll
  static void setUp() {
    WebhookTestCluster cluster = WebhookTestCluster.get();
    cluster.ensureNamespace(NS);
    client = cluster.user();
  }

  static Stream<Arguments> samples() {
    return ValidSamples.all(NS).entrySet().stream()
        .map(e -> Arguments.of(e.getKey(), e.getValue()));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("samples")
  void acceptedAndStored(String name, String yaml) {
    GenericKubernetesResource sent = Serialization.unmarshal(yaml, GenericKubernetesResource.class);
    GenericKubernetesResource stored = client.resource(sent).create();
    try {
      assertThat(stored.getMetadata().getUid()).isNotEmpty();
    } finally {
      client.resource(stored).withGracePeriod(0).delete();
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("samples")
  void acceptedByTheValidatorsAlone(String name, String yaml) {
    assertThat(InProcessAdmission.create(yaml, WebhookTestCluster.USER))
        .isInstanceOf(AdmissionAnswer.Allow.class);
  }
}
