package dev.berth.webhook.validation;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A Job naming a JobSet as its controller starts only as one of that JobSet's own Jobs: a forged
 * owner reference is not a way around the queue.
 */
class JobSetChildrenTest {
  private static final String OPERATOR = "system:serviceaccount:berth-system:berth";
  private static final String CONTROLLER = "system:serviceaccount:jobset-system:jobset";

  private static final String JOBSET =
      """
      apiVersion: jobset.x-k8s.io/v1alpha2
      kind: JobSet
      metadata: {name: js, namespace: NS, uid: u1, labels: {berth.dev/queue-name: a}}
      spec:
        suspend: false
        replicatedJobs:
        - name: workers
          replicas: 2
          template:
            spec:
              parallelism: 2
              template:
                spec:
                  containers:
                  - {name: c, image: t, resources: {requests: {nvidia.com/gpu: "1"}}}
      """;
  private static final String CHILD =
      """
      apiVersion: batch/v1
      kind: Job
      metadata:
        name: js-workers-0
        namespace: NS
        ownerReferences:
        - {apiVersion: jobset.x-k8s.io/v1alpha2, kind: JobSet, name: js, uid: u1, controller: true}
      spec:
        suspend: false
        parallelism: 2
        template:
          spec:
            containers:
            - {name: c, image: t, resources: {requests: {nvidia.com/gpu: "1"}}}
      """;

  private static ManagedJobPolicy policy(String jobSet) {
    Map<String, JsonNode> jobSets =
        jobSet == null
            ? Map.of()
            : Map.of(
                "ns/js",
                TestObjects.json(jobSet.replace("NS", "ns")),
                "free/js",
                TestObjects.json(jobSet.replace("NS", "free")));
    return new ManagedJobPolicy(
        new RequestGuard(OPERATOR),
        new QueueScopeStandIn(Set.of(), Map.of("ns", "ClusterQueue a selects it"), jobSets));
  }

  record Case(
      String name,
      String namespace,
      String jobSet,
      String child,
      String user,
      List<String> refused) {
    @Override
    public String toString() {
      return name;
    }
  }

  static List<Case> cases() {
    String suspendedJobSet = JOBSET.replace("suspend: false", "suspend: true");
    return List.of(
        new Case(
            "the JobSet controller creates a running JobSet's Job",
            "ns",
            JOBSET,
            CHILD,
            CONTROLLER,
            List.of()),
        new Case(
            "no Job beyond the replicas",
            "ns",
            JOBSET,
            CHILD.replace("js-workers-0", "js-workers-2"),
            CONTROLLER,
            List.of("metadata.name")),
        new Case(
            "no Job of another replicatedJob",
            "ns",
            JOBSET,
            CHILD.replace("js-workers-0", "js-extra-0"),
            CONTROLLER,
            List.of("metadata.name")),
        new Case(
            "no more pods than the replicatedJob",
            "ns",
            JOBSET,
            CHILD.replace("parallelism: 2", "parallelism: 8"),
            CONTROLLER,
            List.of("spec.parallelism")),
        new Case(
            "no other requests",
            "ns",
            JOBSET,
            CHILD.replace("\"1\"", "\"8\""),
            CONTROLLER,
            List.of("spec.template.spec.containers[0].resources")),
        new Case(
            "not while the JobSet is suspended",
            "ns",
            suspendedJobSet,
            CHILD,
            "alice",
            List.of("metadata.ownerReferences")),
        new Case(
            "not for a JobSet that does not exist",
            "ns",
            null,
            CHILD,
            "alice",
            List.of("metadata.ownerReferences")),
        new Case(
            "not for another JobSet of that name",
            "ns",
            JOBSET.replace("u1", "u2"),
            CHILD,
            "alice",
            List.of("metadata.ownerReferences")),
        new Case(
            "a managed JobSet's Job in a namespace Berth does not manage",
            "free",
            suspendedJobSet,
            CHILD,
            "alice",
            List.of("metadata.ownerReferences")),
        new Case(
            "an unmanaged JobSet's Job elsewhere is not Berth's",
            "free",
            suspendedJobSet.replace("labels: {berth.dev/queue-name: a}", "labels: {}"),
            CHILD,
            "alice",
            List.of()),
        new Case(
            "created suspended, it waits for its JobSet",
            "ns",
            suspendedJobSet,
            CHILD.replace("suspend: false", "suspend: true"),
            "alice",
            List.of()),
        new Case("the operator is not held", "ns", null, CHILD, OPERATOR, List.of()));
  }

  private static final String MARK = "metadata.annotations[berth.dev/stop-requested]";

  /** A child Job of a suspended managed JobSet, itself suspended, and the same with a mark. */
  private static final String SUSPENDED_CHILD = CHILD.replace("suspend: false", "suspend: true");

  private static final String MARKED_CHILD =
      SUSPENDED_CHILD.replace(
          "  name: js-workers-0\n",
          "  name: js-workers-0\n  annotations: {berth.dev/stop-requested: \"3\"}\n");

  private static List<String> markUpdate(String namespace, String old, String now, String user) {
    String jobSet = JOBSET.replace("suspend: false", "suspend: true");
    return policy(jobSet)
        .onUpdate(
            "Job",
            namespace,
            TestObjects.json(old.replace("NS", namespace)),
            TestObjects.json(now.replace("NS", namespace)),
            user)
        .stream()
        .map(FieldError::path)
        .toList();
  }

  @Test
  void onlyTheOperatorMarksAChildJobsStopRequest() {
    assertThat(markUpdate("ns", SUSPENDED_CHILD, MARKED_CHILD, "alice")).containsExactly(MARK);
    assertThat(markUpdate("ns", MARKED_CHILD, SUSPENDED_CHILD, "alice")).containsExactly(MARK);
    assertThat(markUpdate("ns", MARKED_CHILD, MARKED_CHILD.replace("\"3\"", "\"4\""), CONTROLLER))
        .containsExactly(MARK);
    assertThat(markUpdate("ns", SUSPENDED_CHILD, MARKED_CHILD, OPERATOR)).isEmpty();
    // The JobSet controller's writes carry the mark as it is.
    assertThat(
            markUpdate(
                "ns",
                MARKED_CHILD,
                MARKED_CHILD.replace("parallelism: 2", "parallelism: 2\n  completions: 2"),
                CONTROLLER))
        .isEmpty();
    assertThat(
            policy(null)
                .onCreate("Job", "ns", TestObjects.json(MARKED_CHILD.replace("NS", "ns")), "alice")
                .stream()
                .map(FieldError::path))
        .containsExactly(MARK);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void create(Case c) {
    JsonNode child = TestObjects.json(c.child().replace("NS", c.namespace()));
    assertThat(policy(c.jobSet()).onCreate("Job", c.namespace(), child, c.user()))
        .extracting(FieldError::path)
        .containsExactlyInAnyOrderElementsOf(c.refused());
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void unsuspend(Case c) {
    String child = c.child().replace("NS", c.namespace());
    JsonNode before = TestObjects.json(child.replace("suspend: false", "suspend: true"));
    List<String> refused = child.contains("suspend: true") ? List.of() : c.refused();
    assertThat(
            policy(c.jobSet())
                .onUpdate("Job", c.namespace(), before, TestObjects.json(child), c.user()))
        .extracting(FieldError::path)
        .containsExactlyInAnyOrderElementsOf(refused);
  }
}
