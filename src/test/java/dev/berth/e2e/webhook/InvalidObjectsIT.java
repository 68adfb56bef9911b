package dev.berth.e2e.webhook;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.berth.webhook.server.AdmissionAnswer;
import dev.berth.webhook.validation.FieldError;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Every file of the invalid corpus is refused, by the real API server and by the validators. */
class InvalidObjectsIT {
  private static KubernetesClient client;

  @BeforeAll
  static void setUp() {
    WebhookTestCluster cluster = WebhookTestCluster.get();
    cluster.ensureNamespace(WebhookCorpus.NAMESPACE);
    client = cluster.user();
  }

  static List<WebhookCorpus.Case> corpus() {
    return WebhookCorpus.all();
  }

  @Test
  void corpusHasAtLeast120Rules() {
    assertThat(corpus()).hasSizeGreaterThanOrEqualTo(120);
    assertThat(
            corpus().stream()
                .filter(
                    c ->
                        c.name().contains("-w")
                            || c.name().startsWith("job")
                            || c.name().startsWith("js")))
        .hasSizeGreaterThanOrEqualTo(100);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("corpus")
  void apiServerRefusesWithTheFieldPath(WebhookCorpus.Case c) {
    GenericKubernetesResource object =
        Serialization.unmarshal(c.yaml(), GenericKubernetesResource.class);
    assertThatThrownBy(() -> client.resource(object).create())
        .isInstanceOf(KubernetesClientException.class)
        .satisfies(e -> assertThat(((KubernetesClientException) e).getCode()).isIn(400, 422))
        .hasMessageContaining(c.path())
        .hasMessageContaining(c.message());
  }

  /** The same rule holds without the API server: the operator re-checks with these validators. */
  @ParameterizedTest(name = "{0}")
  @MethodSource("corpus")
  void validatorsRefuseAtTheSameField(WebhookCorpus.Case c) {
    AdmissionAnswer answer = InProcessAdmission.create(c.yaml(), WebhookTestCluster.USER);
    assertThat(answer).isInstanceOf(AdmissionAnswer.Invalid.class);
    List<FieldError> errors = ((AdmissionAnswer.Invalid) answer).errors();
    assertThat(errors)
        .extracting(FieldError::path)
        .anySatisfy(p -> assertThat(p).startsWith(c.path()));
  }
}
