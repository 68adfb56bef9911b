package dev.berth.engine;

import static dev.berth.engine.Builders.clusterQueue;
import static dev.berth.engine.Builders.cohort;
import static dev.berth.engine.Builders.flavor;
import static dev.berth.engine.Builders.localQueue;
import static dev.berth.engine.Builders.q;
import static dev.berth.engine.Builders.workload;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.berth.engine.model.ClusterQueue;
import dev.berth.engine.model.PendingReason;
import dev.berth.engine.model.PreemptionPolicy;
import dev.berth.engine.model.StopPolicy;
import dev.berth.engine.model.Workload;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What the engine does when things go wrong around it: a cycle that throws, an eviction write that
 * is lost, a ClusterQueue being deleted, a cohort cycle under admitted work, an admission observed
 * on the API server that the engine did not decide.
 */
class EngineFaultsTest {

  /** A named case: builds its own engine and checks it. */
  record Case(String name, Consumer<Void> body) {
    @Override
    public String toString() {
      return name;
    }
  }

  private static final PreemptionPolicy LOWER_PRIORITY =
      new PreemptionPolicy(PreemptionPolicy.WithinClusterQueue.LowerPriority, null, null, null);

  /**
   * Two ClusterQueues of 4 cpu each: "a" admits "first" (priority 20); "b" runs "low" (2 cpu) and
   * receives "high" (4 cpu, priority 10), which must preempt "low". The planner may fail.
   */
  private static AdmissionEngine twoQueues(PreemptionPlanner planner) {
    AdmissionEngine e =
        engine(
            planner,
            clusterQueue("a").flavor("default").res("cpu", "4").build(),
            preempting("b", "4"));
    e.upsertWorkload(wl("low", "lb", 1, 0, "2"));
    assertThat(e.runCycle(1).admissions()).extracting(Admission::name).containsExactly("low");
    e.upsertWorkload(wl("first", "la", 20, 2, "4"));
    e.upsertWorkload(wl("high", "lb", 10, 3, "4"));
    return e;
  }

  /** One flavor "default", namespace "default", and LocalQueue "l" + name for every queue. */
  private static AdmissionEngine engine(PreemptionPlanner planner, ClusterQueue... queues) {
    AdmissionEngine e = new AdmissionEngine(new BorrowingLastOrdering(), planner);
    e.upsertResourceFlavor(flavor("default").build());
    e.upsertNamespace("default", Map.of());
    for (ClusterQueue cq : queues) {
      e.upsertClusterQueue(cq);
      e.upsertLocalQueue(localQueue("l" + cq.name(), cq.name()));
    }
    return e;
  }

  private static ClusterQueue preempting(String name, String cpu) {
    return clusterQueue(name).preemption(LOWER_PRIORITY).flavor("default").res("cpu", cpu).build();
  }

  private static ClusterQueue plain(String name, String cpu) {
    return clusterQueue(name).flavor("default").res("cpu", cpu).build();
  }

  /** One pod of {@code cpu} in LocalQueue {@code lq}. */
  private static Workload wl(String name, String lq, int priority, long created, String cpu) {
    return workload(name)
        .queue(lq)
        .priority(priority)
        .created(created)
        .podSet("main", 1, "cpu", cpu)
        .build();
  }

  /**
   * Classical preemption, except that the call numbered {@code failing} (from 1) throws, after
   * taking every candidate's usage off the tree when {@code removeFirst}.
   */
  private static PreemptionPlanner failingCall(int failing, boolean removeFirst) {
    ClassicalPreemption classical = new ClassicalPreemption();
    AtomicInteger calls = new AtomicInteger();
    return new PreemptionPlanner() {
      @Override
      public List<String> victims(PreemptionContext ctx) {
        return plan(ctx).stream().map(PreemptionPlanner.Victim::uid).toList();
      }

      @Override
      public List<Victim> plan(PreemptionContext ctx) {
        if (calls.incrementAndGet() == failing) {
          if (removeFirst) {
            ctx.admittedInTree().forEach(a -> SimulatedRemoval.remove(ctx, a));
          }
          throw new IllegalStateException("planner call " + failing + " fails");
        }
        return classical.plan(ctx);
      }
    };
  }

  private static String decisions(CycleResult r) {
    return r.admissions().stream().map(a -> a.name() + "@" + a.clusterQueue()).toList()
        + " "
        + r.evictions().stream().map(ev -> ev.workloadUid() + ":" + ev.reason()).toList();
  }

  private static Workload cpuWorkload(String name, String queue, long created, String cpu) {
    return wl(name, queue, 0, created, cpu);
  }

  private static List<PodSetAssignment> onDefault(String cpu) {
    return List.of(
        new PodSetAssignment(
            "main", Map.of("cpu", "default"), Map.of("cpu", q("cpu", cpu)), 1, Map.of()));
  }

  static Stream<Case> cases() {
    return Stream.of(
        new Case(
            "a cycle that throws leaves no tentative admission, no simulated removal",
            v -> {
              AdmissionEngine e = twoQueues(failingCall(1, true));
              assertThatThrownBy(() -> e.runCycle(10)).hasMessage("planner call 1 fails");
              assertThat(e.admission("first")).as("admitted earlier in the failed cycle").isEmpty();
              assertThat(e.isPending("first")).isTrue();
              assertThat(e.status().usage("a", "default", "cpu")).isZero();
              assertThat(e.status().usage("b", "default", "cpu"))
                  .as("low's, taken off")
                  .isEqualTo(q("cpu", "2"));
              assertThat(e.status().available("b", "default", "cpu")).isEqualTo(q("cpu", "2"));
              assertThat(e.admittedCount()).isEqualTo(1);
            }),
        new Case(
            "the cycle after a failed one decides as if the failure never happened",
            v -> {
              AdmissionEngine failing = twoQueues(failingCall(1, true));
              assertThatThrownBy(() -> failing.runCycle(10))
                  .isInstanceOf(IllegalStateException.class);
              AdmissionEngine sound = twoQueues(new ClassicalPreemption());
              assertThat(decisions(failing.runCycle(10)))
                  .isEqualTo(decisions(sound.runCycle(10)))
                  .isEqualTo("[first@a] [low:Preempted]");
              assertThat(failing.status().pendingStatus("high").reason())
                  .isEqualTo(PendingReason.WaitingForPreemptedWorkloads);
            }),
        new Case(
            "a cycle that throws after asking for a preemption leaves none expected",
            v -> {
              // "a" preempts first (its preemptor ranks first), then "b"'s planner call fails.
              PreemptionPlanner secondFails = failingCall(2, false);
              AdmissionEngine e = engine(secondFails, preempting("a", "2"), preempting("b", "2"));
              e.upsertWorkload(wl("a-low", "la", 1, 0, "2"));
              e.upsertWorkload(wl("b-low", "lb", 1, 0, "2"));
              e.runCycle(1);
              e.upsertWorkload(wl("a-high", "la", 30, 2, "2"));
              e.upsertWorkload(wl("b-high", "lb", 20, 3, "2"));
              assertThatThrownBy(() -> e.runCycle(10)).hasMessage("planner call 2 fails");
              assertThat(e.status().pendingStatus("a-high").reason())
                  .isNotEqualTo(PendingReason.WaitingForPreemptedWorkloads);
              CycleResult next = e.runCycle(11);
              assertThat(decisions(next)).isEqualTo("[] [a-low:Preempted, b-low:Preempted]");
            }),
        new Case(
            "an eviction is asked for every cycle until the Workload shows Evicted",
            v -> {
              AdmissionEngine e = twoQueues(new ClassicalPreemption());
              assertThat(decisions(e.runCycle(10))).isEqualTo("[first@a] [low:Preempted]");
              assertThat(decisions(e.runCycle(11)))
                  .as("the write was lost: asked again")
                  .isEqualTo("[] [low:Preempted]");
              assertThat(decisions(e.runCycle(12))).isEqualTo("[] [low:Preempted]");
              e.evictionObserved("low");
              assertThat(decisions(e.runCycle(13))).isEqualTo("[] []");
              assertThat(e.status().usage("b", "default", "cpu"))
                  .as("low's quota kept while its pods stop, the rest reserved for high")
                  .isEqualTo(q("cpu", "4"));
              e.workloadEvicted("low", 14);
              assertThat(decisions(e.runCycle(15))).isEqualTo("[high@b] []");
            }),
        new Case(
            "a drained ClusterQueue asks for its evictions until each shows Evicted",
            v -> {
              AdmissionEngine e = twoQueues(new ClassicalPreemption());
              e.upsertClusterQueue(
                  clusterQueue("b")
                      .preemption(LOWER_PRIORITY)
                      .flavor("default")
                      .res("cpu", "4")
                      .stop(StopPolicy.HoldAndDrain)
                      .build());
              assertThat(e.runCycle(10).evictions())
                  .extracting(Eviction::workloadUid)
                  .containsExactly("low");
              assertThat(e.runCycle(11).evictions())
                  .extracting(Eviction::reason)
                  .containsExactly(EvictionReason.ClusterQueueStopped);
              e.evictionObserved("low");
              assertThat(e.runCycle(12).evictions()).isEmpty();
            }),
        new Case(
            "a workload found Evicted at restart is no preemption victim again",
            v -> {
              AdmissionEngine e = engine(new ClassicalPreemption(), preempting("b", "4"));
              e.recordAdmitted(wl("stopping", "lb", 1, 0, "2"), "b", onDefault("2"), 1);
              e.evictionObserved("stopping");
              e.recordAdmitted(wl("running", "lb", 1, 0, "2"), "b", onDefault("2"), 2);
              e.upsertWorkload(wl("high", "lb", 10, 3, "2"));
              assertThat(decisions(e.runCycle(10))).isEqualTo("[] [running:Preempted]");
            }),
        new Case(
            "a ClusterQueue being deleted admits nothing new and says it terminates",
            v -> {
              AdmissionEngine e = twoQueues(new ClassicalPreemption());
              e.clusterQueueTerminating("b", true);
              // The stored spec comes back (a status write's reply, a resync): still terminating.
              e.upsertClusterQueue(preempting("b", "5"));
              e.upsertWorkload(cpuWorkload("small", "lb", 4, "1"));
              assertThat(decisions(e.runCycle(10))).isEqualTo("[first@a] []");
              assertThat(e.status().clusterQueueInactiveMessage("b"))
                  .isEqualTo("ClusterQueue b is terminating: it admits nothing new");
              assertThat(e.status().pendingStatus("small").reason())
                  .isEqualTo(PendingReason.Inadmissible);
              assertThat(e.admission("low")).as("what it holds finishes in peace").isPresent();
              e.deleteClusterQueue("b");
              e.upsertClusterQueue(plain("b", "4"));
              e.workloadFinished("low");
              assertThat(decisions(e.runCycle(11)))
                  .as("created again under the same name")
                  .contains("high@b");
            }),
        new Case(
            "an admitted workload under a cohort cycle is recorded without looping",
            v -> {
              AdmissionEngine e = new AdmissionEngine();
              e.upsertResourceFlavor(flavor("default").build());
              e.upsertCohort(cohort("x").parent("y").build());
              e.upsertCohort(cohort("y").parent("x").build());
              e.upsertClusterQueue(
                  clusterQueue("cq").cohort("x").flavor("default").res("cpu", "4").build());
              e.upsertNamespace("default", Map.of());
              e.upsertLocalQueue(localQueue("lcq", "cq"));
              assertTimeoutPreemptively(
                  Duration.ofSeconds(5),
                  () -> {
                    e.recordAdmitted(
                        cpuWorkload("running", "lcq", 1, "2"), "cq", onDefault("2"), 1);
                    e.upsertWorkload(cpuWorkload("waiting", "lcq", 2, "1"));
                    assertThat(e.runCycle(10).admissions()).isEmpty();
                    assertThat(e.status().clusterQueueInactiveMessage("cq"))
                        .contains("cohort cycle");
                    e.workloadFinished("running");
                  });
              e.upsertCohort(cohort("y").build());
              assertThat(e.runCycle(11).admissions())
                  .extracting(Admission::name)
                  .containsExactly("waiting");
              assertThat(e.status().usage("cq", "default", "cpu")).isEqualTo(q("cpu", "1"));
            }),
        new Case(
            "an observed admission that does not fit gets the newest admission evicted",
            v -> {
              AdmissionEngine e = engine(new ClassicalPreemption(), plain("cq", "4"));
              e.upsertWorkload(cpuWorkload("retried", "lcq", 2, "3"));
              assertThat(decisions(e.runCycle(20))).isEqualTo("[retried@cq] []");
              // The watch now delivers an admission written at t=10 whose reply was lost.
              List<Eviction> over =
                  e.recordAdmitted(
                      cpuWorkload("ambiguous", "lcq", 1, "2"), "cq", onDefault("2"), 10);
              assertThat(over)
                  .extracting(Eviction::workloadUid, Eviction::reason)
                  .containsExactly(tuple("retried", EvictionReason.OverQuota));
              assertThat(decisions(e.runCycle(21))).isEqualTo("[] [retried:OverQuota]");
            }),
        new Case(
            "an observed admission that fits is recorded with no eviction",
            v -> {
              AdmissionEngine e = engine(new ClassicalPreemption(), plain("cq", "4"));
              e.upsertWorkload(cpuWorkload("mine", "lcq", 2, "2"));
              e.runCycle(20);
              Workload theirs = cpuWorkload("theirs", "lcq", 1, "2");
              assertThat(e.recordAdmitted(theirs, "cq", onDefault("2"), 10)).isEmpty();
              assertThat(e.status().usage("cq", "default", "cpu")).isEqualTo(q("cpu", "4"));
            }),
        new Case(
            "an observed admission over quota counts evictions in progress as gone",
            v -> {
              AdmissionEngine e = engine(new ClassicalPreemption(), plain("cq", "4"));
              e.recordAdmitted(cpuWorkload("leaving", "lcq", 1, "2"), "cq", onDefault("2"), 1);
              e.evictionObserved("leaving");
              e.recordAdmitted(cpuWorkload("staying", "lcq", 2, "2"), "cq", onDefault("2"), 2);
              assertThat(
                      e.recordAdmitted(cpuWorkload("late", "lcq", 3, "2"), "cq", onDefault("2"), 3))
                  .isEmpty();
            }));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void faults(Case c) {
    c.body().accept(null);
  }
}
