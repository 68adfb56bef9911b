package dev.berth.operator.events;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.api.v1beta1.Workload;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The JSON posted is the Event fabric8's model would have sent; the API server takes it in e2e. */
class EventPosterTest {
  @Test
  void theBodyIsTheEventAsTheModelWritesIt() {
    Workload wl = new Workload();
    wl.getMetadata().setName("train");
    wl.getMetadata().setNamespace("team");
    wl.getMetadata().setUid("uid-1");
    wl.getMetadata().setResourceVersion("42");
    String message = "quota \"reserved\" in cq\n\u2026 \\ done";
    EventRecorder.Pending pending =
        new EventRecorder.Pending(
            "team", "train.1a2b3c4d", wl, "Normal", "Admitted", message, "2026-12-05T10:00:00Z");

    Event posted =
        Serialization.unmarshal(
            new String(EventPoster.json(pending), StandardCharsets.UTF_8), Event.class);

    Event expected =
        new EventBuilder()
            .withNewMetadata()
            .withName("train.1a2b3c4d")
            .withNamespace("team")
            .endMetadata()
            .withInvolvedObject(
                new ObjectReferenceBuilder()
                    .withApiVersion("berth.dev/v1beta1")
                    .withKind("Workload")
                    .withName("train")
                    .withNamespace("team")
                    .withUid("uid-1")
                    .withResourceVersion("42")
                    .build())
            .withType("Normal")
            .withReason("Admitted")
            .withMessage(message)
            .withFirstTimestamp("2026-12-05T10:00:00Z")
            .withLastTimestamp("2026-12-05T10:00:00Z")
            .withCount(1)
            .withNewSource()
            .withComponent("berth-operator")
            .endSource()
            .withReportingComponent("berth-operator")
            .build();
    assertThat(posted).isEqualTo(expected);
  }

  @Test
  void aClusterScopedObjectHasNoNamespaceInItsReference() {
    Workload object = new Workload();
    object.getMetadata().setName("cluster-wide");
    EventRecorder.Pending pending =
        new EventRecorder.Pending(
            "default", "cluster-wide.1", object, "Warning", "InvalidSpec", "bad", "t");
    String json = new String(EventPoster.json(pending), StandardCharsets.UTF_8);
    assertThat(json)
        .contains(
            "\"involvedObject\":{\"apiVersion\":\"berth.dev/v1beta1\",\"kind\":\"Workload\","
                + "\"name\":\"cluster-wide\"}");
  }
}
