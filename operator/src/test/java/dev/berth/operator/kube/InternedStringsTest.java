package dev.berth.operator.kube;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.api.v1beta1.Workload;
import dev.berth.operator.Clients;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.RequestConfigBuilder;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Two Workloads decoded by the operator's client share the strings they have in common. */
class InternedStringsTest {
  private static final String JSON =
      """
      {"apiVersion":"berth.dev/v1beta1","kind":"Workload",
       "metadata":{"name":"%s","namespace":"team-a","uid":"%s","labels":{"class":"small"}},
       "spec":{"queueName":"lq","podSets":[{"name":"main","count":1,"template":{"spec":
         {"containers":[{"name":"c","image":"busybox"}]}}}]},
       "status":{"conditions":[{"type":"QuotaReserved","status":"True","reason":"QuotaReserved",
         "message":"Quota reserved in ClusterQueue cq-0-1","lastTransitionTime":"2026-12-04T03:00:00Z"}]}}
      """;

  @Test
  void repeatedValuesAreOneObjectAndUniqueOnesStayUnique() {
    KubernetesSerialization serialization = InternedStrings.serialization();
    Workload a = serialization.unmarshal(JSON.formatted("a", "uid-a"), Workload.class);
    Workload b = serialization.unmarshal(JSON.formatted("b", "uid-b"), Workload.class);

    assertThat(b.getMetadata().getNamespace()).isSameAs(a.getMetadata().getNamespace());
    assertThat(b.getMetadata().getLabels().get("class"))
        .isSameAs(a.getMetadata().getLabels().get("class"));
    assertThat(b.getSpec().queueName).isSameAs(a.getSpec().queueName);
    assertThat(b.getSpec().podSets.get(0).template.getSpec().getContainers().get(0).getImage())
        .isSameAs(a.getSpec().podSets.get(0).template.getSpec().getContainers().get(0).getImage());
    var ca = a.getStatus().conditions.get(0);
    var cb = b.getStatus().conditions.get(0);
    assertThat(cb.message).isSameAs(ca.message);
    assertThat(cb.reason).isSameAs(ca.reason);
    assertThat(cb.lastTransitionTime).isSameAs(ca.lastTransitionTime);

    assertThat(a.getMetadata().getUid()).isEqualTo("uid-a");
    assertThat(b.getMetadata().getName()).isEqualTo("b");
  }

  @Test
  void theDefaultSerializationDoesNotShareThem() {
    // What the test above guards against: fabric8's own decoding gives each object its copies.
    KubernetesSerialization plain = new KubernetesSerialization();
    Workload a = plain.unmarshal(JSON.formatted("a", "uid-a"), Workload.class);
    Workload b = plain.unmarshal(JSON.formatted("b", "uid-b"), Workload.class);
    assertThat(b.getSpec().queueName).isNotSameAs(a.getSpec().queueName);
  }

  @Test
  void theOperatorsClientDecodesThisWayAndSoDoClientsMadeFromIt() {
    try (KubernetesClient client =
        Clients.builder(Duration.ofSeconds(5))
            .withConfig(new ConfigBuilder().withMasterUrl("https://127.0.0.1:1").build())
            .build()) {
      KubernetesClient listing =
          client
              .newClient(new RequestConfigBuilder().withRequestTimeout(60_000).build())
              .adapt(KubernetesClient.class);
      for (KubernetesClient c : java.util.List.of(client, listing)) {
        KubernetesSerialization s = c.getKubernetesSerialization();
        Workload a = s.unmarshal(JSON.formatted("a", "uid-a"), Workload.class);
        Workload b = s.unmarshal(JSON.formatted("b", "uid-b"), Workload.class);
        assertThat(b.getSpec().queueName).isSameAs(a.getSpec().queueName);
      }
    }
  }
}
