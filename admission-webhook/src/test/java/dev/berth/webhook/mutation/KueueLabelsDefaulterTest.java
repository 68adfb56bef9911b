package dev.berth.webhook.mutation;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.client.utils.Serialization;
import org.junit.jupiter.api.Test;

class KueueLabelsDefaulterTest {
  private static ObjectNode apply(String yaml) {
    ObjectNode o =
        Serialization.jsonMapper().valueToTree(Serialization.unmarshal(yaml, java.util.Map.class));
    new KueueLabelsDefaulter().apply(o, "team");
    return o;
  }

  @Test
  void aJobsKueueLabelsAndItsTemplatesAnnotationsGetBerthsNames() {
    ObjectNode job =
        apply(
            """
            apiVersion: batch/v1
            kind: Job
            metadata:
              name: train
              labels: {kueue.x-k8s.io/queue-name: user-queue, kueue.x-k8s.io/priority-class: high}
              annotations: {kueue.x-k8s.io/job-min-parallelism: "2"}
            spec:
              template:
                metadata:
                  annotations: {kueue.x-k8s.io/podset-required-topology: rack}
                spec: {containers: [{name: c, image: i}]}
            """);
    assertThat(job.at("/metadata/labels/berth.dev~1queue-name").asText()).isEqualTo("user-queue");
    assertThat(job.at("/metadata/labels/berth.dev~1priority-class").asText()).isEqualTo("high");
    assertThat(job.at("/metadata/annotations/berth.dev~1job-min-parallelism").asText())
        .isEqualTo("2");
    assertThat(
            job.at("/spec/template/metadata/annotations/berth.dev~1podset-required-topology")
                .asText())
        .isEqualTo("rack");
    // Kueue's stay: the object reads the same to Kueue.
    assertThat(job.at("/metadata/labels/kueue.x-k8s.io~1queue-name").asText())
        .isEqualTo("user-queue");
  }

  @Test
  void berthsOwnKeyWinsAndKueuesOtherKeysAreLeftAlone() {
    ObjectNode pod =
        apply(
            """
            apiVersion: v1
            kind: Pod
            metadata:
              labels:
                kueue.x-k8s.io/queue-name: user-queue
                berth.dev/queue-name: mine
                kueue.x-k8s.io/pod-group-name: g
              annotations:
                kueue.x-k8s.io/pod-group-total-count: "3"
                kueue.x-k8s.io/elastic-job: "true"
                kueue.x-k8s.io/queue-name: as-an-annotation
            """);
    assertThat(pod.at("/metadata/labels/berth.dev~1queue-name").asText()).isEqualTo("mine");
    assertThat(pod.at("/metadata/labels/berth.dev~1pod-group-name").asText()).isEqualTo("g");
    assertThat(pod.at("/metadata/annotations/berth.dev~1pod-group-total-count").asText())
        .isEqualTo("3");
    assertThat(pod.at("/metadata/annotations").has("berth.dev/elastic-job")).isFalse();
    // A label's name as an annotation is not read as the label.
    assertThat(pod.at("/metadata/annotations").has("berth.dev/queue-name")).isFalse();
  }

  @Test
  void aJobSetsReplicatedJobTemplatesAndACronJobsJobTemplateAreCopiedToo() {
    ObjectNode jobSet =
        apply(
            """
            apiVersion: jobset.x-k8s.io/v1alpha2
            kind: JobSet
            metadata: {labels: {kueue.x-k8s.io/queue-name: q}}
            spec:
              replicatedJobs:
              - name: workers
                template:
                  spec:
                    template:
                      metadata:
                        annotations: {kueue.x-k8s.io/podset-preferred-topology: block}
            """);
    assertThat(
            jobSet
                .at(
                    "/spec/replicatedJobs/0/template/spec/template/metadata/annotations/"
                        + "berth.dev~1podset-preferred-topology")
                .asText())
        .isEqualTo("block");
    ObjectNode cron =
        apply(
            """
            apiVersion: batch/v1
            kind: CronJob
            metadata: {labels: {kueue.x-k8s.io/queue-name: q}}
            spec:
              jobTemplate:
                metadata: {labels: {kueue.x-k8s.io/queue-name: q}}
            """);
    assertThat(cron.at("/spec/jobTemplate/metadata/labels/berth.dev~1queue-name").asText())
        .isEqualTo("q");
  }
}
