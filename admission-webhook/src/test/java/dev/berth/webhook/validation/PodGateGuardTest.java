package dev.berth.webhook.validation;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Updates of a pod behind Berth's topology gate: who may release it, and what else is fixed. */
class PodGateGuardTest {
  private static final String OPERATOR = "system:serviceaccount:berth-system:berth";
  private static final PodGateGuard GUARD = new PodGateGuard(new RequestGuard(OPERATOR));

  private static final String GATED =
      """
      apiVersion: v1
      kind: Pod
      metadata:
        name: p
        namespace: ns
        labels: {berth.dev/podset: main, berth.dev/workload: uid-1, app: train}
      spec:
        schedulingGates: [{name: example.com/quota}, {name: berth.dev/topology}]
        nodeSelector: {nvidia.com/gpu.product: H100}
        containers: [{name: c, image: busybox}]
      """;
  private static final String RELEASED =
      GATED
          .replace("[{name: example.com/quota}, {name: berth.dev/topology}]", "[]")
          .replace(
              "{nvidia.com/gpu.product: H100}",
              "{nvidia.com/gpu.product: H100, topology.berth.dev/rack: r1}");

  /** A plain Pod queued by the pod integration, waiting behind the admission gate. */
  private static final String QUEUED =
      """
      apiVersion: v1
      kind: Pod
      metadata:
        name: q
        namespace: ns
        labels: {berth.dev/queue-name: a, berth.dev/managed: "true", app: serve}
      spec:
        schedulingGates: [{name: berth.dev/admission}]
        containers: [{name: c, image: busybox}]
      """;

  /** {@link #QUEUED} as the operator admits it: gate gone, its flavor's labels and toleration. */
  private static final String ADMITTED =
      QUEUED
          .replace("[{name: berth.dev/admission}]", "[]")
          .replace(
              "  containers:",
              "  nodeSelector: {gpu: h100}\n"
                  + "  tolerations: [{key: gpu, operator: Exists}]\n  containers:");

  record Case(String name, String user, String old, String now, List<String> refused) {
    @Override
    public String toString() {
      return name;
    }
  }

  static List<Case> cases() {
    return List.of(
        new Case(
            "a user may not remove Berth's gate",
            "alice",
            GATED,
            GATED.replace(", {name: berth.dev/topology}", ""),
            List.of("spec.schedulingGates")),
        new Case(
            "nor release the pod somewhere else",
            "alice",
            GATED,
            RELEASED.replace("r1", "r9"),
            List.of("spec.schedulingGates", "spec.nodeSelector")),
        new Case(
            "nor add to its nodeSelector while it waits",
            "alice",
            GATED,
            GATED.replace("H100}", "H100, topology.berth.dev/rack: r9}"),
            List.of("spec.nodeSelector")),
        new Case(
            "nor add a toleration while it waits",
            "alice",
            GATED,
            GATED.replace(
                "  containers:",
                "  tolerations: [{key: reserved, operator: Exists}]\n  containers:"),
            List.of("spec.tolerations")),
        new Case(
            "nor take Berth's labels away",
            "alice",
            GATED,
            GATED.replace("berth.dev/podset: main, berth.dev/workload: uid-1, ", ""),
            List.of("metadata.labels[berth.dev/podset]", "metadata.labels[berth.dev/workload]")),
        new Case(
            "another controller removes its own gate",
            "quota-controller",
            GATED,
            GATED.replace("{name: example.com/quota}, ", ""),
            List.of()),
        new Case(
            "other labels may change",
            "alice",
            GATED,
            GATED.replace("app: train", "app: x"),
            List.of()),
        new Case(
            "the operator releases the pod into its domain", OPERATOR, GATED, RELEASED, List.of()),
        new Case(
            "a released pod is no longer Berth's to guard",
            "alice",
            RELEASED,
            RELEASED.replace("berth.dev/podset: main, ", ""),
            List.of()),
        new Case(
            "a user may not release a queued pod",
            "alice",
            QUEUED,
            QUEUED.replace("[{name: berth.dev/admission}]", "[]"),
            List.of("spec.schedulingGates")),
        new Case(
            "nor steer it while it waits",
            "alice",
            QUEUED,
            QUEUED.replace(
                "  containers:",
                "  nodeSelector: {gpu: h100}\n"
                    + "  tolerations: [{key: gpu, operator: Exists}]\n  containers:"),
            List.of("spec.nodeSelector", "spec.tolerations")),
        new Case(
            "nor add a toleration once it is admitted",
            "alice",
            ADMITTED,
            ADMITTED.replace(
                "operator: Exists}]", "operator: Exists}, {key: spot, operator: Exists}]"),
            List.of("spec.tolerations")),
        new Case(
            "nor take it out of the queue",
            "alice",
            ADMITTED,
            ADMITTED.replace("berth.dev/queue-name: a, berth.dev/managed: \"true\", ", ""),
            List.of("metadata.labels[berth.dev/queue-name]", "metadata.labels[berth.dev/managed]")),
        new Case(
            "its other labels may change",
            "alice",
            ADMITTED,
            ADMITTED.replace("serve", "x"),
            List.of()),
        new Case("the operator admits a queued pod", OPERATOR, QUEUED, ADMITTED, List.of()),
        new Case(
            "nor move it to another group, or resize its group",
            "alice",
            ADMITTED.replace(
                "app: serve}",
                "app: serve, berth.dev/pod-group-name: g}\n  annotations:"
                    + " {berth.dev/pod-group-total-count: \"2\"}"),
            ADMITTED.replace(
                "app: serve}",
                "app: serve, berth.dev/pod-group-name: h}\n  annotations:"
                    + " {berth.dev/pod-group-total-count: \"3\"}"),
            List.of(
                "metadata.labels[berth.dev/pod-group-name]",
                "metadata.annotations[berth.dev/pod-group-total-count]")),
        new Case(
            "a labelled pod the pod webhook did not mark is not queued",
            "alice",
            ADMITTED.replace(", berth.dev/managed: \"true\"", ""),
            ADMITTED
                .replace(", berth.dev/managed: \"true\"", "")
                .replace("operator: Exists}]", "operator: Exists}, {key: spot, operator: Exists}]"),
            List.of()));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void update(Case c) {
    assertThat(GUARD.checkUpdate(TestObjects.json(c.old()), TestObjects.json(c.now()), c.user()))
        .extracting(FieldError::path)
        .containsExactlyInAnyOrderElementsOf(c.refused());
  }

  @org.junit.jupiter.api.Test
  void theMessageNamesTheGateAndTheUser() {
    assertThat(GUARD.checkUpdate(TestObjects.json(GATED), TestObjects.json(RELEASED), "alice"))
        .map(FieldError::toString)
        .contains(
            "spec.schedulingGates: Forbidden: the berth.dev/topology scheduling gate cannot"
                + " be removed; only the Berth operator may, when it releases the pod into its"
                + " topology domain (user \"alice\" may not)");
  }
}
