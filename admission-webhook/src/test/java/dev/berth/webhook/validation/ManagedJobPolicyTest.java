package dev.berth.webhook.validation;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The request rules for Jobs and JobSets, as a table: who asks, in which namespace, what the object
 * was and becomes, and the field paths refused.
 */
class ManagedJobPolicyTest {
  private static final String OPERATOR = "system:serviceaccount:berth-system:berth";
  private static final String ALICE = "alice";
  private static final String QUEUE = "metadata.labels[berth.dev/queue-name]";
  private static final String MARK = "metadata.annotations[berth.dev/stop-requested]";
  private static final String MIN_PARALLELISM =
      "annotations: {berth.dev/job-min-parallelism: \"2\"}";
  private static final UnaryOperator<String> ADD_MARK =
      replace(
          MIN_PARALLELISM,
          "annotations: {berth.dev/job-min-parallelism: \"2\", berth.dev/stop-requested: \"true\"}");

  /** "ns" is selected by a ClusterQueue; "free" is not; "ns" has LocalQueues team-a and team-b. */
  private static final ManagedJobPolicy POLICY =
      new ManagedJobPolicy(
          new RequestGuard(OPERATOR),
          new QueueScopeStandIn(
              Set.of("ns/team-a", "ns/team-b", "free/team-a"),
              Map.of("ns", "ClusterQueue team-a selects it")));

  private static final String JOB =
      ObjectRulesTest.JOB.replace(
          "parallelism: 4", "parallelism: 2\n  completions: 2\n  suspend: true");
  private static final String RUNNING_JOB = JOB.replace("suspend: true", "suspend: false");
  private static final String JOBSET =
      ObjectRulesTest.JOBSET.replace("  replicatedJobs:", "  suspend: true\n  replicatedJobs:");
  private static final String RUNNING_JOBSET = JOBSET.replace("suspend: true", "suspend: false");

  record Case(
      String name,
      String kind,
      String namespace,
      String user,
      String old,
      UnaryOperator<String> change,
      List<String> refused) {
    @Override
    public String toString() {
      return name;
    }
  }

  private static UnaryOperator<String> replace(String from, String to) {
    return yaml -> {
      if (!yaml.contains(from)) {
        throw new IllegalStateException("test object has no " + from);
      }
      return yaml.replace(from, to);
    };
  }

  private static final UnaryOperator<String> DROP_LABEL =
      replace("labels: {berth.dev/queue-name: team-a}", "labels: {}");
  private static final UnaryOperator<String> UNSUSPEND = replace("suspend: true", "suspend: false");

  static List<Case> updates() {
    return List.of(
        new Case(
            "a suspended Job moves to another LocalQueue",
            "Job",
            "ns",
            ALICE,
            JOB,
            replace("queue-name: team-a", "queue-name: team-b"),
            List.of()),
        new Case(
            "a suspended Job may not move to a missing LocalQueue",
            "Job",
            "ns",
            ALICE,
            JOB,
            replace("queue-name: team-a", "queue-name: nowhere"),
            List.of(QUEUE)),
        new Case(
            "the label cannot be removed from a suspended Job",
            "Job",
            "ns",
            ALICE,
            JOB,
            DROP_LABEL,
            List.of(QUEUE)),
        new Case(
            "... nor in a namespace no ClusterQueue selects",
            "Job",
            "free",
            ALICE,
            JOB,
            DROP_LABEL,
            List.of(QUEUE)),
        new Case("... nor by the operator", "Job", "ns", OPERATOR, JOB, DROP_LABEL, List.of(QUEUE)),
        new Case(
            "a user may not unsuspend",
            "Job",
            "ns",
            ALICE,
            JOB,
            UNSUSPEND,
            List.of("spec.suspend")),
        new Case(
            "nor drop the label and unsuspend at once",
            "Job",
            "free",
            ALICE,
            JOB,
            s -> UNSUSPEND.apply(DROP_LABEL.apply(s)),
            List.of(QUEUE, "spec.suspend")),
        new Case(
            "an unlabelled Job in a managed namespace is not started by a user",
            "Job",
            "ns",
            ALICE,
            DROP_LABEL.apply(JOB),
            UNSUSPEND,
            List.of("spec.suspend")),
        new Case(
            "an unlabelled Job elsewhere is not Berth's",
            "Job",
            "free",
            ALICE,
            DROP_LABEL.apply(JOB),
            UNSUSPEND,
            List.of()),
        new Case("the operator unsuspends", "Job", "ns", OPERATOR, JOB, UNSUSPEND, List.of()),
        new Case(
            "only the operator marks a stop request",
            "Job",
            "ns",
            ALICE,
            JOB,
            ADD_MARK,
            List.of(MARK)),
        new Case(
            "... on a running Job too", "Job", "ns", ALICE, RUNNING_JOB, ADD_MARK, List.of(MARK)),
        new Case("the operator marks it", "Job", "ns", OPERATOR, JOB, ADD_MARK, List.of()),
        new Case(
            "nobody else removes it",
            "Job",
            "ns",
            ALICE,
            ADD_MARK.apply(JOB),
            replace(", berth.dev/stop-requested: \"true\"", ""),
            List.of(MARK)),
        new Case(
            "an unchanged mark is no one's business",
            "Job",
            "ns",
            ALICE,
            ADD_MARK.apply(JOB),
            replace("queue-name: team-a", "queue-name: team-b"),
            List.of()),
        new Case(
            "a suspended Job is resized (it is requeued at its new size)",
            "Job",
            "ns",
            ALICE,
            JOB,
            replace("parallelism: 2", "parallelism: 8"),
            List.of()),
        new Case(
            "a running Job does not grow",
            "Job",
            "ns",
            ALICE,
            RUNNING_JOB,
            replace("parallelism: 2", "parallelism: 8"),
            List.of("spec.parallelism")),
        new Case(
            "a running Job does not shrink",
            "Job",
            "ns",
            ALICE,
            RUNNING_JOB,
            replace("parallelism: 2", "parallelism: 1"),
            List.of("spec.parallelism")),
        new Case(
            "a running Job keeps its completions",
            "Job",
            "free",
            ALICE,
            RUNNING_JOB,
            replace("completions: 2", "completions: 3"),
            List.of("spec.completions")),
        new Case(
            "a running Job keeps its requests",
            "Job",
            "ns",
            ALICE,
            RUNNING_JOB,
            replace("cpu: \"1\"", "cpu: \"1\", nvidia.com/gpu: \"8\""),
            List.of("spec.template.spec.containers[0].resources.requests[nvidia.com/gpu]")),
        new Case(
            "a running Job keeps its template",
            "Job",
            "ns",
            ALICE,
            RUNNING_JOB,
            replace("image: busybox", "image: other"),
            List.of("spec.template.spec.containers[0].image")),
        new Case(
            "the operator resizes a running Job (partial admission)",
            "Job",
            "ns",
            OPERATOR,
            RUNNING_JOB,
            replace("parallelism: 2", "parallelism: 1"),
            List.of()),
        new Case(
            "a running Job keeps its min-parallelism",
            "Job",
            "ns",
            ALICE,
            RUNNING_JOB,
            replace("job-min-parallelism: \"2\"", "job-min-parallelism: \"1\""),
            List.of("metadata.annotations[berth.dev/job-min-parallelism]")),
        new Case(
            "other fields of a running Job may change",
            "Job",
            "ns",
            ALICE,
            RUNNING_JOB,
            replace("annotations: {", "annotations: {owner: me, "),
            List.of()),
        new Case(
            "a running JobSet does not grow",
            "JobSet",
            "ns",
            ALICE,
            RUNNING_JOBSET,
            replace("replicas: 2", "replicas: 8"),
            List.of("spec.replicatedJobs[0].replicas")),
        new Case(
            "a running JobSet does not shrink",
            "JobSet",
            "ns",
            ALICE,
            RUNNING_JOBSET,
            replace("replicas: 2", "replicas: 1"),
            List.of("spec.replicatedJobs[0].replicas")),
        new Case(
            "a running JobSet keeps its Jobs' parallelism",
            "JobSet",
            "ns",
            ALICE,
            RUNNING_JOBSET,
            replace(
                "      spec:\n        template:",
                "      spec:\n        parallelism: 4\n        template:"),
            List.of("spec.replicatedJobs[0].template.spec.parallelism")),
        new Case(
            "a running JobSet keeps its replicatedJobs",
            "JobSet",
            "ns",
            ALICE,
            RUNNING_JOBSET,
            replace(
                "  replicatedJobs:\n",
                "  replicatedJobs:\n  - {name: extra, replicas: 1, template: {spec: {}}}\n"),
            List.of("spec.replicatedJobs")),
        new Case(
            "a suspended JobSet is resized",
            "JobSet",
            "ns",
            ALICE,
            JOBSET,
            replace("replicas: 2", "replicas: 8"),
            List.of()),
        new Case(
            "a user may not unsuspend a JobSet",
            "JobSet",
            "ns",
            ALICE,
            JOBSET,
            UNSUSPEND,
            List.of("spec.suspend")),
        new Case(
            "the label cannot be removed from a suspended JobSet",
            "JobSet",
            "ns",
            ALICE,
            JOBSET,
            DROP_LABEL,
            List.of(QUEUE)));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("updates")
  void update(Case c) {
    String ns = "namespace: " + c.namespace();
    JsonNode old = TestObjects.json(c.old().replace("namespace: ns", ns));
    JsonNode now = TestObjects.json(c.change().apply(c.old()).replace("namespace: ns", ns));
    assertThat(POLICY.onUpdate(c.kind(), c.namespace(), old, now, c.user()))
        .extracting(FieldError::path)
        .containsExactlyInAnyOrderElementsOf(c.refused());
  }

  static List<Case> creates() {
    return List.of(
        new Case("a labelled, suspended Job", "Job", "ns", ALICE, null, s -> JOB, List.of()),
        new Case(
            "a Job created with a stop-request mark",
            "Job",
            "ns",
            ALICE,
            null,
            s -> ADD_MARK.apply(JOB),
            List.of(MARK)),
        new Case(
            "an unlabelled Job in a managed namespace names no queue",
            "Job",
            "ns",
            ALICE,
            null,
            s -> DROP_LABEL.apply(JOB),
            List.of(QUEUE)),
        new Case(
            "... and is not started either",
            "Job",
            "ns",
            ALICE,
            null,
            s -> DROP_LABEL.apply(RUNNING_JOB),
            List.of(QUEUE, "spec.suspend")),
        new Case(
            "an unlabelled Job elsewhere is not Berth's",
            "Job",
            "free",
            ALICE,
            null,
            s -> DROP_LABEL.apply(RUNNING_JOB),
            List.of()),
        new Case(
            "an unlabelled JobSet in a managed namespace",
            "JobSet",
            "ns",
            ALICE,
            null,
            s -> DROP_LABEL.apply(JOBSET),
            List.of(QUEUE)),
        new Case(
            "a labelled Job created running by a user",
            "Job",
            "free",
            ALICE,
            null,
            s -> RUNNING_JOB,
            List.of("spec.suspend")));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("creates")
  void create(Case c) {
    JsonNode job =
        TestObjects.json(
            c.change().apply(null).replace("namespace: ns", "namespace: " + c.namespace()));
    assertThat(POLICY.onCreate(c.kind(), c.namespace(), job, c.user()))
        .extracting(FieldError::path)
        .containsExactlyInAnyOrderElementsOf(c.refused());
  }

  @Test
  void messagesSayWhatIsRefusedAndWhy() {
    JsonNode job = TestObjects.json(JOB);
    assertThat(POLICY.onUpdate("Job", "ns", job, TestObjects.json(DROP_LABEL.apply(JOB)), ALICE))
        .map(FieldError::toString)
        .containsExactly(
            QUEUE
                + ": Forbidden: cannot be removed from a"
                + " Job managed by Berth; move it to another LocalQueue of namespace ns, or delete"
                + " the Job");
    String missing = replace("queue-name: team-a", "queue-name: nowhere").apply(JOB);
    assertThat(POLICY.onUpdate("Job", "ns", job, TestObjects.json(missing), ALICE))
        .map(FieldError::toString)
        .singleElement()
        .asString()
        .contains("Invalid value: \"nowhere\"", "namespace ns has no LocalQueue \"nowhere\"");
    String grown = replace("parallelism: 2", "parallelism: 8").apply(RUNNING_JOB);
    assertThat(
            POLICY.onUpdate(
                "Job", "ns", TestObjects.json(RUNNING_JOB), TestObjects.json(grown), ALICE))
        .map(FieldError::toString)
        .containsExactly(
            "spec.parallelism: Forbidden: cannot change"
                + " from 2 to 8: the Job runs under the Workload admitted for its old size; delete it"
                + " and create it again to change its pods");
    assertThat(POLICY.onCreate("Job", "ns", TestObjects.json(DROP_LABEL.apply(JOB)), ALICE))
        .map(FieldError::toString)
        .containsExactly(
            QUEUE
                + ": Required value: namespace ns is"
                + " managed by Berth (ClusterQueue team-a selects it): a Job there must name one of"
                + " its LocalQueues in the label berth.dev/queue-name (team-a, team-b), or the"
                + " namespace needs a LocalQueue named default");
  }

  @Test
  void withOnlyLabelledJobsManagedAnUnlabelledJobRunsAndALabelledOneStaysInItsQueue() {
    ManagedJobPolicy labelledOnly =
        new ManagedJobPolicy(
            new RequestGuard(OPERATOR),
            new LabelledOnly(
                new QueueScopeStandIn(
                    Set.of("ns/team-a", "ns/team-b"),
                    Map.of("ns", "ClusterQueue team-a selects it"))));
    assertThat(labelledOnly.onCreate("Job", "ns", TestObjects.json(DROP_LABEL.apply(JOB)), ALICE))
        .isEmpty();
    // A labelled Job is still Berth's: only the operator starts it.
    assertThat(
            labelledOnly.onUpdate(
                "Job", "ns", TestObjects.json(JOB), TestObjects.json(UNSUSPEND.apply(JOB)), ALICE))
        .isNotEmpty();
  }
}
