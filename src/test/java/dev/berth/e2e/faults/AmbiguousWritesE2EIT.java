package dev.berth.e2e.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.berth.api.v1beta1.ClusterQueuePreemption;
import dev.berth.api.v1beta1.Condition;
import dev.berth.api.v1beta1.UsageReport;
import dev.berth.api.v1beta1.Workload;
import dev.berth.api.v1beta1.WorkloadPriorityClass;
import dev.berth.e2e.EndedRuns;
import dev.berth.e2e.RunningOperator;
import dev.berth.e2e.TestApiServer;
import dev.berth.operator.BerthOperator;
import dev.berth.operator.Clients;
import dev.berth.operator.usage.ReportTranslator;
import dev.berth.operator.usage.ReportWriter;
import dev.berth.operator.usage.UsageRecorder;
import dev.berth.testing.ClusterQueues;
import dev.berth.testing.Jobs;
import dev.berth.testing.LocalQueues;
import dev.berth.testing.Quota;
import dev.berth.testing.ResourceFlavors;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.RequestConfigBuilder;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Writes whose outcome the operator cannot know, on the real API server: the {@link FaultyApiProxy}
 * forwards a Workload's admission, a victim's preemption, a Job's start and its suspension (and a
 * UsageReport's status, written by the operator's report writer) to kube-apiserver, lets it apply
 * them, and then answers the operator 500, 504, or drops the connection without a reply. Each must
 * be read back and taken as written: the write is not sent again (a re-send at the same
 * resourceVersion is refused 409 and was taken for "not written", issue 42), the admission is
 * neither rolled back while applied nor made twice, no ClusterQueue ever holds more than its quota,
 * and each transition gets its one Event.
 *
 * <p>Counted by a watch of its own on the API server (not through the proxy): every transition of
 * QuotaReserved, Evicted and of each Job's suspend, at every event.
 */
class AmbiguousWritesE2EIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String FLAVOR = "ambiguous-flavor";
  private static final long QUOTA_MILLIS = 1_000;

  private static TestApiServer.Cluster cluster;
  private static KubernetesClient admin;
  private static FaultyApiProxy proxy;
  private static BerthOperator operator;

  @BeforeAll
  static void start() throws Exception {
    cluster = TestApiServer.dedicated();
    admin = cluster.client();
    admin.resource(ResourceFlavors.named(FLAVOR).build()).create();
    priorityClass("ambiguous-low", 10);
    priorityClass("ambiguous-high", 1000);
    // No fault on a schedule (rate 0): only the ones each case arms.
    proxy = new FaultyApiProxy(cluster.kubeconfig(), new FaultSchedule(1, 0));
    operator = RunningOperator.startNew(proxy.kubeconfig(), false);
  }

  @AfterAll
  static void stop() throws Exception {
    if (operator != null) {
      operator.close();
    }
    if (proxy != null) {
      proxy.close();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  /** The admission write and the Job's start both applied, then failed to the operator. */
  @ParameterizedTest
  @EnumSource(
      value = Fault.class,
      names = {"APPLIED_THEN_500", "APPLIED_THEN_504", "TIMEOUT_AFTER_APPLY"})
  void anAdmissionAndAStartAppliedThenFailedAreReadBackAndMadeOnce(Fault fault) throws Exception {
    String ns = namespace("admit", fault);
    queue(ns, "ambiguous-admit-" + tag(fault), null);
    try (Transitions seen = Transitions.watch(admin, ns)) {
      FaultyApiProxy.Armed admission =
          proxy.arm(
              fault,
              workloadStatus(ns),
              workload(w -> isTrue(w, "QuotaReserved") && !isTrue(w, "Evicted")));
      FaultyApiProxy.Armed start =
          proxy.arm(
              fault,
              job(ns, "first"),
              jobBody(j -> j.path("spec").path("suspend").asBoolean() == false));
      admin.resource(job(ns, "first", null)).create();
      await().atMost(Duration.ofSeconds(30)).until(() -> seen.workloadOf("first") != null);
      admin.resource(job(ns, "second", null)).create();

      await()
          .atMost(Duration.ofSeconds(60))
          .untilAsserted(
              () -> {
                assertThat(admission.appliedAndFailed())
                    .as("admission applied, then failed")
                    .isTrue();
                assertThat(start.appliedAndFailed()).as("start applied, then failed").isTrue();
                assertThat(seen.running("first")).as("first running").isTrue();
                assertThat(events(ns, "Workload", seen.workloadOf("first"), "Admitted"))
                    .as("Admitted Events of first's Workload")
                    .isEqualTo(1);
                assertThat(events(ns, "Job", "first", "Started"))
                    .as("Started Events of Job first")
                    .isEqualTo(1);
                // The second was considered and left waiting: its pending reason is written.
                assertThat(seen.pendingReasonWritten("second"))
                    .as("second's pending reason")
                    .isTrue();
              });

      assertThat(admission.resent()).as("the admission write sent again").isZero();
      assertThat(start.resent()).as("the start sent again").isZero();
      assertThat(seen.admissions("first")).as("admissions of first").isEqualTo(1);
      assertThat(seen.releases("first")).as("first's quota given back while applied").isZero();
      assertThat(seen.admissions("second")).as("admissions of second").isZero();
      assertThat(seen.starts("first")).as("starts of first").isEqualTo(1);
      assertThat(seen.starts("second")).as("starts of second").isZero();
      assertThat(seen.violations()).isEmpty();
    }
  }

  /** The preemption of a running Job's Workload and its suspension applied, then failed. */
  @ParameterizedTest
  @EnumSource(
      value = Fault.class,
      names = {"APPLIED_THEN_500", "APPLIED_THEN_504", "TIMEOUT_AFTER_APPLY"})
  void aPreemptionAndASuspensionAppliedThenFailedAreReadBackAndMadeOnce(Fault fault)
      throws Exception {
    String ns = namespace("preempt", fault);
    queue(
        ns,
        "ambiguous-preempt-" + tag(fault),
        ClusterQueuePreemption.WithinClusterQueue.LowerPriority);
    try (Transitions seen = Transitions.watch(admin, ns)) {
      admin.resource(job(ns, "low", "ambiguous-low")).create();
      await().atMost(Duration.ofSeconds(60)).until(() -> seen.running("low"));

      FaultyApiProxy.Armed preemption =
          proxy.arm(
              fault,
              workloadStatus(ns),
              workload(w -> isTrue(w, "Evicted") && isTrue(w, "QuotaReserved")));
      FaultyApiProxy.Armed suspension =
          proxy.arm(
              fault, job(ns, "low"), jobBody(j -> j.path("spec").path("suspend").asBoolean()));
      admin.resource(job(ns, "high", "ambiguous-high")).create();

      await()
          .atMost(Duration.ofSeconds(90))
          .untilAsserted(
              () -> {
                assertThat(preemption.appliedAndFailed())
                    .as("preemption applied, then failed")
                    .isTrue();
                assertThat(suspension.appliedAndFailed())
                    .as("suspension applied, then failed")
                    .isTrue();
                assertThat(seen.running("high")).as("high running").isTrue();
                assertThat(seen.running("low")).as("low running").isFalse();
                assertThat(events(ns, "Workload", seen.workloadOf("low"), "Preempted"))
                    .as("Preempted Events of low's Workload")
                    .isEqualTo(1);
                assertThat(events(ns, "Job", "low", "Suspended"))
                    .as("Suspended Events of Job low")
                    .isEqualTo(1);
                assertThat(events(ns, "Workload", seen.workloadOf("high"), "Admitted"))
                    .as("Admitted Events of high's Workload")
                    .isEqualTo(1);
              });

      assertThat(preemption.resent()).as("the preemption sent again").isZero();
      assertThat(suspension.resent()).as("the suspension sent again").isZero();
      assertThat(seen.evictions("low")).as("evictions of low").isEqualTo(1);
      assertThat(seen.admissions("low")).as("admissions of low").isEqualTo(1);
      assertThat(seen.admissions("high")).as("admissions of high").isEqualTo(1);
      assertThat(seen.starts("low")).as("starts of low").isEqualTo(1);
      assertThat(seen.starts("high")).as("starts of high").isEqualTo(1);
      assertThat(seen.violations()).isEmpty();
    }
  }

  /**
   * A UsageReport status write applied, then failed, by the writer the operator runs (on its
   * writing client, fabric8's retry off): read back, the runs it added are reported as added once
   * and counted once, and the write is not sent again. With fabric8's retry the write was re-sent,
   * refused 409, and the report read again already counted the runs: the batch was reported as
   * adding none, and its usage metrics were never recorded.
   */
  @ParameterizedTest
  @EnumSource(
      value = Fault.class,
      names = {"APPLIED_THEN_500", "APPLIED_THEN_504", "TIMEOUT_AFTER_APPLY"})
  void aUsageReportWriteAppliedThenFailedIsReadBackAndCountedOnce(Fault fault) {
    String ns = namespace("report", fault);
    try (KubernetesClient operatorClient =
            Clients.builder().withConfig(Config.fromKubeconfig(proxy.kubeconfig())).build();
        KubernetesClient writes =
            operatorClient
                .newClient(
                    new RequestConfigBuilder(operatorClient.getConfiguration().getRequestConfig())
                        .withRequestRetryBackoffLimit(0)
                        .build())
                .adapt(KubernetesClient.class)) {
      ReportWriter writer = new ReportWriter(writes, Clock.systemUTC());
      FaultyApiProxy.Armed write =
          proxy.arm(
              fault,
              Pattern.compile(
                  "/apis/berth\\.dev/[^/]+/namespaces/"
                      + Pattern.quote(ns)
                      + "/usagereports/[^/]+/status"),
              body -> true);
      List<UsageRecorder.Measured> batch = EndedRuns.of(ns, "run", 3);
      List<String> uids = batch.stream().map(m -> m.run().uid()).toList();

      assertThat(writer.add(batch)).as("the runs added").containsExactlyInAnyOrderElementsOf(uids);
      assertThat(write.appliedAndFailed()).as("the write applied, then failed").isTrue();
      assertThat(write.resent()).as("the write sent again").isZero();
      UsageReport report =
          admin
              .resources(UsageReport.class)
              .inNamespace(ns)
              .withName(UsageReport.nameFor(ReportTranslator.monthOf(EndedRuns.END)))
              .require();
      assertThat(report.getStatus().runs).as("runs counted").isEqualTo(3);
      assertThat(report.getStatus().counted).hasSize(3);
      assertThat(writer.add(batch)).as("the same batch again").isEmpty();
    }
  }

  private static String tag(Fault fault) {
    return fault.name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
  }

  private static String namespace(String what, Fault fault) {
    String ns = "ambiguous-" + what + "-" + tag(fault);
    admin
        .namespaces()
        .resource(new NamespaceBuilder().withNewMetadata().withName(ns).endMetadata().build())
        .serverSideApply();
    return ns;
  }

  private static void queue(
      String ns, String clusterQueue, ClusterQueuePreemption.WithinClusterQueue preemption) {
    ClusterQueues cq = ClusterQueues.named(clusterQueue).flavor(FLAVOR, Quota.quota("cpu", "1"));
    if (preemption != null) {
      cq.preemption(preemption);
    }
    admin.resource(cq.build()).create();
    admin.resource(LocalQueues.named("lq").in(ns).clusterQueue(clusterQueue).build()).create();
  }

  private static void priorityClass(String name, int value) {
    WorkloadPriorityClass wpc = new WorkloadPriorityClass();
    wpc.getMetadata().setName(name);
    wpc.setValue(value);
    admin.resource(wpc).create();
  }

  private static Job job(String ns, String name, String priorityClass) {
    Jobs job = Jobs.named(name).in(ns).queue("lq").request("cpu", "1");
    if (priorityClass != null) {
      job.priorityClass(priorityClass);
    }
    return job.build();
  }

  private static Pattern workloadStatus(String ns) {
    return Pattern.compile(
        "/apis/berth\\.dev/[^/]+/namespaces/" + Pattern.quote(ns) + "/workloads/[^/]+/status");
  }

  private static Pattern job(String ns, String name) {
    return Pattern.compile(
        "/apis/batch/v1/namespaces/" + Pattern.quote(ns) + "/jobs/" + Pattern.quote(name));
  }

  private static Predicate<String> workload(Predicate<Workload> test) {
    return body -> {
      try {
        return test.test(admin.getKubernetesSerialization().unmarshal(body, Workload.class));
      } catch (RuntimeException notAWorkload) {
        return false;
      }
    };
  }

  private static Predicate<String> jobBody(Predicate<JsonNode> test) {
    return body -> {
      try {
        return test.test(JSON.readTree(body));
      } catch (IOException notJson) {
        return false;
      }
    };
  }

  static boolean isTrue(Workload w, String type) {
    return w.getStatus() != null
        && w.getStatus().conditions != null
        && w.getStatus().conditions.stream().anyMatch(c -> type.equals(c.type) && c.isTrue());
  }

  /** The Events of that reason on that object, counting repeats the API server folded into one. */
  private static int events(String ns, String kind, String name, String reason) {
    if (name == null) {
      return 0;
    }
    return admin.v1().events().inNamespace(ns).list().getItems().stream()
        .filter(e -> reason.equals(e.getReason()))
        .filter(e -> kind.equals(e.getInvolvedObject().getKind()))
        .filter(e -> name.equals(e.getInvolvedObject().getName()))
        .mapToInt(AmbiguousWritesE2EIT::count)
        .sum();
  }

  private static int count(Event e) {
    return e.getCount() == null || e.getCount() == 0 ? 1 : e.getCount();
  }

  /**
   * Every Workload and Job event of a namespace, as the API server sends them to a client of its
   * own: per Job, how often its Workload's QuotaReserved turned True (an admission) and back to
   * False without an Evicted condition before it (a rollback of an applied admission), how often
   * Evicted turned True, and how often the Job was unsuspended; and, at each event, whether the
   * ClusterQueue's reserved cpu exceeds its quota.
   */
  static final class Transitions implements AutoCloseable {
    private final Map<String, Workload> workloads = new ConcurrentHashMap<>();
    private final Map<String, String> jobOfWorkload = new ConcurrentHashMap<>();
    private final Map<String, Integer> admissions = new ConcurrentHashMap<>();
    private final Map<String, Integer> releases = new ConcurrentHashMap<>();
    private final Map<String, Integer> evictions = new ConcurrentHashMap<>();
    private final Map<String, Integer> starts = new ConcurrentHashMap<>();
    private final Map<String, Boolean> suspended = new ConcurrentHashMap<>();
    private final List<String> violations = new CopyOnWriteArrayList<>();
    private Watch workloadWatch;
    private Watch jobWatch;

    static Transitions watch(KubernetesClient admin, String ns) {
      Transitions t = new Transitions();
      t.workloadWatch = admin.resources(Workload.class).inNamespace(ns).watch(t.workloadWatcher());
      t.jobWatch = admin.batch().v1().jobs().inNamespace(ns).watch(t.jobWatcher());
      return t;
    }

    private Watcher<Workload> workloadWatcher() {
      return new Watcher<>() {
        @Override
        public void eventReceived(Action action, Workload now) {
          synchronized (Transitions.this) {
            String name = now.getMetadata().getName();
            String job =
                now.getMetadata().getOwnerReferences().stream()
                    .findFirst()
                    .map(o -> o.getName())
                    .orElse(name);
            jobOfWorkload.put(name, job);
            Workload before = workloads.put(name, now);
            boolean was = before != null && isTrue(before, "QuotaReserved");
            boolean is = action != Action.DELETED && isTrue(now, "QuotaReserved");
            if (!was && is) {
              admissions.merge(job, 1, Integer::sum);
            }
            if (was && !is && !isTrue(before, "Evicted")) {
              releases.merge(job, 1, Integer::sum);
            }
            boolean wasEvicted = before != null && isTrue(before, "Evicted");
            if (!wasEvicted && isTrue(now, "Evicted")) {
              evictions.merge(job, 1, Integer::sum);
            }
            checkQuota(name + " " + action + " at " + now.getMetadata().getResourceVersion());
          }
        }

        @Override
        public void onClose(WatcherException cause) {}
      };
    }

    private Watcher<Job> jobWatcher() {
      return new Watcher<>() {
        @Override
        public void eventReceived(Action action, Job job) {
          String name = job.getMetadata().getName();
          boolean now = !Boolean.FALSE.equals(job.getSpec().getSuspend());
          Boolean was = suspended.put(name, now);
          if (!now && (was == null || was)) {
            starts.merge(name, 1, Integer::sum);
          }
        }

        @Override
        public void onClose(WatcherException cause) {}
      };
    }

    /** Reserved cpu per ClusterQueue, from the Workloads holding quota and not finished. */
    private void checkQuota(String after) {
      Map<String, Long> perQueue = new java.util.HashMap<>();
      for (Workload w : workloads.values()) {
        if (isTrue(w, "QuotaReserved")
            && !isTrue(w, "Finished")
            && w.getStatus().admission != null) {
          long millis =
              w.getStatus().admission.podSetAssignments.stream()
                  .mapToLong(
                      ps ->
                          dev.berth.engine.quota.Quantity.parse(
                              "cpu", ps.resourceUsage.get("cpu").toString()))
                  .sum();
          perQueue.merge(w.getStatus().admission.clusterQueue, millis, Long::sum);
        }
      }
      perQueue.forEach(
          (cq, used) -> {
            if (used > QUOTA_MILLIS) {
              violations.add(cq + " holds " + used + "m cpu after " + after);
            }
          });
    }

    synchronized String workloadOf(String job) {
      return jobOfWorkload.entrySet().stream()
          .filter(e -> e.getValue().equals(job))
          .map(Map.Entry::getKey)
          .findFirst()
          .orElse(null);
    }

    boolean running(String job) {
      return Boolean.FALSE.equals(suspended.get(job));
    }

    /** Its Workload has a QuotaReserved condition False with a reason (the pending reason). */
    synchronized boolean pendingReasonWritten(String job) {
      String name = workloadOf(job);
      Workload w = name == null ? null : workloads.get(name);
      return w != null
          && w.getStatus() != null
          && w.getStatus().conditions != null
          && w.getStatus().conditions.stream()
              .anyMatch(
                  (Condition c) ->
                      "QuotaReserved".equals(c.type) && !c.isTrue() && c.reason != null);
    }

    int admissions(String job) {
      return admissions.getOrDefault(job, 0);
    }

    int releases(String job) {
      return releases.getOrDefault(job, 0);
    }

    int evictions(String job) {
      return evictions.getOrDefault(job, 0);
    }

    int starts(String job) {
      return starts.getOrDefault(job, 0);
    }

    List<String> violations() {
      return violations;
    }

    @Override
    public void close() {
      if (workloadWatch != null) {
        workloadWatch.close();
      }
      if (jobWatch != null) {
        jobWatch.close();
      }
    }
  }
}
