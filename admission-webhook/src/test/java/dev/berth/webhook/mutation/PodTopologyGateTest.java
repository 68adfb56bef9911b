package dev.berth.webhook.mutation;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.berth.webhook.server.AdmissionAnswer;
import dev.berth.webhook.server.AdmissionCall;
import dev.berth.webhook.server.MutatingHandler;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.zjsonpatch.JsonPatch;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The pod webhook as the API server calls it: the JSON Patch it answers, applied to the pod. */
class PodTopologyGateTest {
  private static final MutatingHandler HANDLER =
      new MutatingHandler(new PodTopologyGate(), Set.of("CREATE"));

  /** A case: its name, the pod's labels and gates, the operation, and the gates stored after. */
  record Case(String name, String labels, String gates, String operation, List<String> expected) {
    @Override
    public String toString() {
      return name;
    }
  }

  static List<Case> cases() {
    String podSet = "{berth.dev/podset: main, berth.dev/workload: job-train-1a2b3}";
    return List.of(
        new Case(
            "labelled pod gets the gate", podSet, null, "CREATE", List.of("berth.dev/topology")),
        new Case(
            "labelled pod with an empty gate list gets the gate",
            podSet,
            "[]",
            "CREATE",
            List.of("berth.dev/topology")),
        new Case(
            "another gate is kept, Berth's appended",
            podSet,
            "[{name: example.com/quota}]",
            "CREATE",
            List.of("example.com/quota", "berth.dev/topology")),
        new Case(
            "already gated pod is not gated twice",
            podSet,
            "[{name: berth.dev/topology}, {name: example.com/quota}]",
            "CREATE",
            List.of("berth.dev/topology", "example.com/quota")),
        new Case("unlabelled pod is untouched", "{app: web}", null, "CREATE", List.of()),
        new Case("pod without labels is untouched", null, null, "CREATE", List.of()),
        new Case("update is never mutated", podSet, null, "UPDATE", List.of()));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void gates(Case c) throws Exception {
    JsonNode pod = pod(c.labels(), c.gates());
    AdmissionAnswer answer =
        HANDLER.handle(
            new AdmissionCall(
                "uid",
                "",
                "Pod",
                null,
                c.operation(),
                "team",
                "p",
                "system:serviceaccount:kube-system:job-controller",
                pod,
                c.operation().equals("UPDATE") ? pod : null));

    assertThat(answer).isInstanceOf(AdmissionAnswer.Allow.class);
    String patch = ((AdmissionAnswer.Allow) answer).jsonPatch();
    JsonNode stored =
        patch == null ? pod : JsonPatch.apply(Serialization.jsonMapper().readTree(patch), pod);
    assertThat(gateNames(stored)).isEqualTo(c.expected());
    if (c.expected().equals(gateNames(pod))) {
      assertThat(patch).as("nothing to change, so no patch").isNull();
    }
    assertThat(stored.get("metadata")).isEqualTo(pod.get("metadata"));
    assertThat(stored.at("/spec/containers")).isEqualTo(pod.at("/spec/containers"));
  }

  private static JsonNode pod(String labels, String gates) {
    String yaml =
        """
        apiVersion: v1
        kind: Pod
        metadata: {name: p, namespace: team%s}
        spec:
          containers: [{name: c, image: b}]
        """
                .formatted(labels == null ? "" : ", labels: " + labels)
            + (gates == null ? "" : "  schedulingGates: " + gates + "\n");
    return Serialization.jsonMapper().valueToTree(Serialization.unmarshal(yaml, Map.class));
  }

  private static List<String> gateNames(JsonNode pod) {
    List<String> names = new ArrayList<>();
    pod.at("/spec/schedulingGates").forEach(g -> names.add(g.path("name").asText()));
    return names;
  }
}
