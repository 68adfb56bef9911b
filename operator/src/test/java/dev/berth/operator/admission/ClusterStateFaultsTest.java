package dev.berth.operator.admission;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.api.v1beta1.ClusterQueue;
import dev.berth.api.v1beta1.ClusterQueuePreemption;
import dev.berth.api.v1beta1.Condition;
import dev.berth.api.v1beta1.PodSetAssignment;
import dev.berth.api.v1beta1.Workload;
import dev.berth.api.v1beta1.WorkloadStatus;
import dev.berth.engine.Admission;
import dev.berth.engine.AdmissionEngine;
import dev.berth.engine.CycleResult;
import dev.berth.engine.Eviction;
import dev.berth.engine.EvictionReason;
import dev.berth.testing.ClusterQueues;
import dev.berth.testing.LocalQueues;
import dev.berth.testing.Quota;
import dev.berth.testing.ResourceFlavors;
import dev.berth.testing.Workloads;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What the loop's state feeds the engine from API objects when things go wrong: a ClusterQueue
 * being deleted, status-write replies, restarts with Evicted workloads and admission times, the
 * same version seen twice, and admissions observed that the engine did not decide. Plain API model
 * objects, no API server: ClusterState does no I/O.
 */
class ClusterStateFaultsTest {

  record Case(String name, Consumer<ClusterState> body) {
    @Override
    public String toString() {
      return name;
    }
  }

  private static int rv = 1;

  /** Flavor "default"; ClusterQueue "cq" with 4 cpu and LowerPriority preemption; LocalQueue. */
  static ClusterState cluster() {
    ClusterState state = new ClusterState(new AdmissionEngine());
    state.bootstrapped();
    state.flavor(ResourceFlavors.named("default").build());
    state.clusterQueue(clusterQueue(false));
    state.namespace("team", Map.of());
    state.localQueue(LocalQueues.named("lq").in("team").clusterQueue("cq").build());
    return state;
  }

  private static ClusterQueue clusterQueue(boolean deleting) {
    ClusterQueues cq =
        ClusterQueues.named("cq")
            .resourceVersion(String.valueOf(rv++))
            .preemption(ClusterQueuePreemption.WithinClusterQueue.LowerPriority)
            .flavor("default", Quota.cpu("4"));
    if (deleting) {
      cq.deleting("2026-01-01T00:00:00Z");
    }
    return cq.build();
  }

  /** A pending Workload of one pod with {@code cpu}. */
  static Workload pending(String name, int priority, String cpu) {
    Workload wl =
        Workloads.named(name)
            .in("team")
            .uid(name)
            .resourceVersion(String.valueOf(rv++))
            .created("2026-01-01T00:00:00Z")
            .queue("lq")
            .priority(priority)
            .request("cpu", cpu)
            .build();
    wl.setStatus(new WorkloadStatus());
    wl.getStatus().conditions = new ArrayList<>();
    return wl;
  }

  /** The same Workload, a newer version, admitted to "cq" at {@code at}. */
  static Workload admitted(Workload wl, String cpu, String at) {
    Workload out = Serialization.clone(wl);
    out.getMetadata().setResourceVersion(String.valueOf(rv++));
    out.getStatus().admission = new dev.berth.api.v1beta1.Admission();
    out.getStatus().admission.clusterQueue = "cq";
    PodSetAssignment ps = new PodSetAssignment();
    ps.name = "main";
    ps.flavors = Map.of("cpu", "default");
    ps.resourceUsage = Map.of("cpu", new Quantity(cpu));
    ps.count = 1;
    out.getStatus().admission.podSetAssignments = List.of(ps);
    out.getStatus().conditions.add(condition(StatusConditions.QUOTA_RESERVED, "QuotaReserved", at));
    return out;
  }

  private static Workload evicted(Workload wl) {
    Workload out = Serialization.clone(wl);
    out.getMetadata().setResourceVersion(String.valueOf(rv++));
    out.getStatus()
        .conditions
        .add(condition(StatusConditions.EVICTED, "Preempted", "2026-01-01T02:00:00Z"));
    return out;
  }

  private static Condition condition(String type, String reason, String at) {
    Condition c = new Condition(type, "True", reason, reason);
    c.lastTransitionTime = at;
    return c;
  }

  private static List<String> admittedNames(CycleResult r) {
    return r.admissions().stream().map(Admission::name).toList();
  }

  static Stream<Case> cases() {
    return Stream.of(
        new Case(
            "a ClusterQueue being deleted stays terminating after a status reply",
            s -> {
              s.clusterQueue(clusterQueue(true));
              s.workload(pending("late", 0, "1"));
              assertThat(s.engine().runCycle(1).admissions()).isEmpty();
              // StatusPublisher's write returns the stored object: it must not reopen the queue.
              s.clusterQueueWritten(clusterQueue(true));
              assertThat(s.engine().runCycle(2).admissions()).isEmpty();
              assertThat(s.engine().status().clusterQueueInactiveMessage("cq"))
                  .isEqualTo("ClusterQueue cq is terminating: it admits nothing new");
              // A resync of the stored object, deletionTimestamp and all: still terminating.
              s.clusterQueue(clusterQueue(true));
              assertThat(s.engine().runCycle(3).admissions()).isEmpty();
            }),
        new Case(
            "a status reply keeps the stored version but never feeds the engine",
            s -> {
              ClusterQueue stopped = clusterQueue(false);
              stopped.getSpec().stopPolicy = dev.berth.api.v1beta1.StopPolicy.Hold;
              s.clusterQueueWritten(stopped);
              assertThat(s.clusterQueues())
                  .extracting(c -> c.getSpec().stopPolicy)
                  .containsExactly(dev.berth.api.v1beta1.StopPolicy.Hold);
              s.workload(pending("w", 0, "1"));
              assertThat(admittedNames(s.engine().runCycle(1))).containsExactly("w");
            }),
        new Case(
            "admission times are rebuilt from the QuotaReserved condition",
            s -> {
              s.workload(admitted(pending("old", 0, "1"), "1", "2026-01-01T01:00:00Z"));
              assertThat(s.engine().admission("old").orElseThrow().admittedAt())
                  .isEqualTo(Instant.parse("2026-01-01T01:00:00Z").toEpochMilli());
            }),
        new Case(
            "at restart the most recently admitted is preempted first, as before it",
            s -> {
              // UID order alone (the tie-break when every time is 0) would pick "a-earlier".
              s.workload(admitted(pending("a-earlier", 0, "2"), "2", "2026-01-01T01:00:00Z"));
              s.workload(admitted(pending("z-later", 0, "2"), "2", "2026-01-01T01:30:00Z"));
              s.workload(pending("urgent", 10, "2"));
              assertThat(s.engine().runCycle(1).evictions())
                  .extracting(Eviction::workloadUid)
                  .containsExactly("z-later");
            }),
        new Case(
            "a workload found Evicted at restart is an eviction in progress, no victim",
            s -> {
              Workload stopping =
                  admitted(pending("a-stopping", 0, "2"), "2", "2026-01-01T01:30:00Z");
              s.workload(evicted(stopping));
              s.workload(admitted(pending("running", 0, "2"), "2", "2026-01-01T01:00:00Z"));
              s.workload(pending("urgent", 10, "2"));
              CycleResult r = s.engine().runCycle(1);
              assertThat(r.evictions())
                  .extracting(Eviction::workloadUid)
                  .containsExactly("running");
            }),
        new Case(
            "the same version seen again does not undo the engine's admission",
            s -> {
              Workload w = pending("w", 0, "1");
              s.workload(w);
              assertThat(admittedNames(s.engine().runCycle(1))).containsExactly("w");
              // The write's outcome is unknown; the watch delivers the version it was decided on.
              s.workload(Serialization.clone(w));
              assertThat(s.engine().admission("w")).isPresent();
            }),
        new Case(
            "an observed admission that does not fit is reported, the newer evicted",
            s -> {
              Workload retried = pending("retried", 0, "3");
              s.workload(retried);
              assertThat(
                      admittedNames(
                          s.engine()
                              .runCycle(Instant.parse("2026-01-01T02:00:00Z").toEpochMilli())))
                  .containsExactly("retried");
              s.workload(admitted(pending("ambiguous", 0, "2"), "2", "2026-01-01T01:00:00Z"));
              List<ClusterState.OverQuota> over = s.takeOverQuota();
              assertThat(over)
                  .singleElement()
                  .satisfies(
                      o -> {
                        assertThat(o.workload().getMetadata().getName()).isEqualTo("ambiguous");
                        assertThat(o.evictions())
                            .extracting(Eviction::workloadUid, Eviction::reason)
                            .containsExactly(
                                org.assertj.core.groups.Tuple.tuple(
                                    "retried", EvictionReason.OverQuota));
                      });
              assertThat(s.takeOverQuota()).as("reported once").isEmpty();
            }),
        new Case(
            "at restart a quota lowered below what runs keeps what runs",
            s -> {
              ClusterState restarting = new ClusterState(new AdmissionEngine());
              restarting.flavor(s.latestFlavor("default").orElseThrow());
              restarting.clusterQueue(clusterQueue(false));
              restarting.namespace("team", Map.of());
              restarting.localQueue(s.localQueues().iterator().next());
              restarting.workload(admitted(pending("one", 0, "3"), "3", "2026-01-01T01:00:00Z"));
              restarting.workload(admitted(pending("two", 0, "3"), "3", "2026-01-01T01:10:00Z"));
              assertThat(restarting.takeOverQuota()).isEmpty();
              assertThat(restarting.engine().runCycle(1).evictions()).isEmpty();
            }));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void faults(Case c) {
    c.body().accept(cluster());
  }
}
