package dev.berth.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.engine.flavor.Assignment;
import dev.berth.engine.flavor.FlavorAssigner;
import dev.berth.engine.flavor.FlavorMode;
import dev.berth.engine.model.ClusterQueue;
import dev.berth.engine.model.FlavorFungibility;
import dev.berth.engine.model.FlavorQuotas;
import dev.berth.engine.model.LabelSelector;
import dev.berth.engine.model.LocalQueue;
import dev.berth.engine.model.PodSet;
import dev.berth.engine.model.PreemptionPolicy;
import dev.berth.engine.model.PreemptionPolicy.BorrowWithinCohort;
import dev.berth.engine.model.PreemptionPolicy.ReclaimWithinCohort;
import dev.berth.engine.model.PreemptionPolicy.WithinClusterQueue;
import dev.berth.engine.model.QueueingStrategy;
import dev.berth.engine.model.ResourceFlavor;
import dev.berth.engine.model.ResourceGroup;
import dev.berth.engine.model.ResourceQuota;
import dev.berth.engine.model.StopPolicy;
import dev.berth.engine.model.Workload;
import dev.berth.engine.queue.PendingWorkload;
import dev.berth.engine.quota.QuotaNode;
import dev.berth.engine.quota.QuotaTree;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.From;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.constraints.Size;
import net.jqwik.api.statistics.Statistics;

/**
 * Random cohorts with random preemption policies and admitted workloads: victims respect the
 * policy's priority rule, no victim is needless, preemption never goes in a circle, and under
 * random streams quota limits hold and nothing is double-booked.
 */
class PreemptionProperties {

  /** One ClusterQueue: nominal and optional borrowingLimit in cpu, and its preemption policy. */
  record QueueConfig(
      int nominal,
      Integer borrowingLimit,
      WithinClusterQueue within,
      ReclaimWithinCohort reclaim,
      BorrowWithinCohort borrow,
      Integer threshold) {}

  /** A workload: its queue (index modulo the queue count), priority, pods of 1 cpu. */
  record Job(int queue, int priority, int pods) {}

  @Provide
  Arbitrary<QueueConfig> queue() {
    return Combinators.combine(
            Arbitraries.integers().between(2, 6),
            Arbitraries.integers().between(0, 4).injectNull(0.5),
            Arbitraries.frequency(
                Tuple.of(1, WithinClusterQueue.Never),
                Tuple.of(2, WithinClusterQueue.LowerPriority),
                Tuple.of(2, WithinClusterQueue.LowerOrNewerEqualPriority)),
            Arbitraries.frequency(
                Tuple.of(1, ReclaimWithinCohort.Never),
                Tuple.of(2, ReclaimWithinCohort.LowerPriority),
                Tuple.of(2, ReclaimWithinCohort.Any)),
            Arbitraries.of(BorrowWithinCohort.class),
            Arbitraries.integers().between(0, 3).injectNull(0.5))
        .as(QueueConfig::new);
  }

  @Provide
  Arbitrary<Job> job() {
    return Combinators.combine(
            Arbitraries.integers().between(0, 5),
            Arbitraries.integers().between(0, 3),
            Arbitraries.integers().between(1, 3))
        .as(Job::new);
  }

  /** A likely preemptor: high priority, several pods. */
  @Provide
  Arbitrary<Job> preemptor() {
    return Combinators.combine(
            Arbitraries.integers().between(0, 5),
            Arbitraries.integers().between(2, 5),
            Arbitraries.integers().between(1, 3))
        .as(Job::new);
  }

  @Property(tries = 800)
  void victimsRespectPriorityAndNoneIsNeedless(
      @ForAll @Size(min = 1, max = 3) List<@From("queue") QueueConfig> queues,
      @ForAll @Size(min = 5, max = 14) List<@From("job") Job> running,
      @ForAll("preemptor") Job preemptor) {
    Cluster c = new Cluster(queues, running);
    Workload p = c.submit(preemptor);
    CycleResult r = c.engine.runCycle(c.now += 10);
    Statistics.label("outcome")
        .collect(r.evictions().isEmpty() ? "no preemption" : r.evictions().size() + " victim(s)");
    Statistics.label("outcome")
        .coverage(
            k -> k.checkQuery(l -> !l.get(0).equals("no preemption")).percentage(pc -> pc >= 10));
    if (r.evictions().isEmpty()) {
      return;
    }
    assertThat(r.admissions()).isEmpty();
    ClusterQueueState cq = c.engine.quotaStore().find(c.queueOf(preemptor));
    PreemptionPolicy policy = cq.spec.preemption();
    List<AdmittedWorkload> victims = new ArrayList<>();
    for (Eviction e : r.evictions()) {
      assertThat(e.preemptorUid()).isEqualTo(p.uid());
      AdmittedWorkload v = c.engine.quotaStore().admitted(e.workloadUid());
      victims.add(v);
      int vp = v.workload.priority();
      switch (e.preemptionReason()) {
        case InClusterQueue -> {
          assertThat(v.clusterQueue).isEqualTo(cq.name);
          assertThat(policy.withinClusterQueue()).isNotEqualTo(WithinClusterQueue.Never);
          if (policy.withinClusterQueue() == WithinClusterQueue.LowerPriority) {
            assertThat(vp).as("InClusterQueue victim priority").isLessThan(p.priority());
          } else {
            assertThat(
                    vp < p.priority()
                        || (vp == p.priority() && v.workload.queueTimestamp() > p.queueTimestamp()))
                .as("LowerOrNewerEqualPriority victim")
                .isTrue();
          }
        }
        case InCohortReclamation -> {
          assertThat(v.clusterQueue).isNotEqualTo(cq.name);
          assertThat(policy.reclaimWithinCohort()).isNotEqualTo(ReclaimWithinCohort.Never);
          if (policy.reclaimWithinCohort() == ReclaimWithinCohort.LowerPriority) {
            assertThat(vp).as("reclaimed victim priority").isLessThan(p.priority());
          }
        }
        case InCohortReclaimWhileBorrowing -> {
          assertThat(v.clusterQueue).isNotEqualTo(cq.name);
          assertThat(policy.borrowWithinCohort()).isEqualTo(BorrowWithinCohort.LowerPriority);
          assertThat(vp).as("victim priority while borrowing").isLessThan(p.priority());
          if (policy.borrowMaxPriorityThreshold() != null) {
            assertThat(vp).isLessThanOrEqualTo(policy.borrowMaxPriorityThreshold());
          }
        }
        default -> throw new AssertionError("unexpected reason " + e.preemptionReason());
      }
    }
    // Take back the preemptor's reservation: the quota is then as when it planned, so its
    // assignment can be derived again.
    PendingPreemption waiting = cq.preemption;
    assertThat(waiting.preemptorUid).isEqualTo(p.uid());
    for (int i = 0; i < waiting.reservedFrs.length; i++) {
      QuotaTree.removeUsage(cq.node, waiting.reservedFrs[i], waiting.reserved[i]);
    }
    PendingWorkload pw = c.engine.pendingQueues().pending(p.uid());
    Assignment a = new FlavorAssigner().assign(pw.bucket().plan(cq.compiled), cq.node);
    assertThat(a.mode()).isEqualTo(FlavorMode.Preempt);
    victims.forEach(c::remove);
    boolean withoutBorrowing = ClassicalPreemption.fits(cq.node, a.frs(), a.usage(), false);
    assertThat(ClassicalPreemption.fits(cq.node, a.frs(), a.usage(), true))
        .as("fits without all victims")
        .isTrue();
    for (AdmittedWorkload v : victims) {
      c.restore(v);
      assertThat(ClassicalPreemption.fits(cq.node, a.frs(), a.usage(), !withoutBorrowing))
          .as(
              "giving back %s still lets %s fit: the victim was needless",
              v.workload.uid(), p.uid())
          .isFalse();
      c.remove(v);
    }
    victims.forEach(c::restore);
  }

  @Property(tries = 200)
  void aStableInputNeverPreemptsInACircle(
      @ForAll @Size(min = 1, max = 3) List<@From("queue") QueueConfig> queues,
      @ForAll @Size(min = 3, max = 12) List<@From("job") Job> running,
      @ForAll @Size(min = 1, max = 6) List<@From("preemptor") Job> arriving) {
    Cluster c = new Cluster(queues, running);
    arriving.forEach(c::submit);
    Set<String> pairs = new HashSet<>();
    int quietCycles = 0;
    for (int i = 0; i < 60 && quietCycles < 3; i++) {
      CycleResult r = c.engine.runCycle(c.now += 10);
      c.checkQuota();
      if (r.evictions().isEmpty()) {
        quietCycles++;
        continue;
      }
      quietCycles = 0;
      for (Eviction e : r.evictions()) {
        String pair = e.preemptorUid() + ">" + e.workloadUid();
        // Taking back is allowed only as a reclamation within the victim's own nominal quota from
        // its preemptor's queue, which borrows by then (a third queue's reclamation can take the
        // victim's queue below nominal, as in seed 935814237758092769).
        if (pairs.contains(e.workloadUid() + ">" + e.preemptorUid())) {
          assertThat(e.preemptionReason())
              .as("%s evicts %s after being evicted by it", e.preemptorUid(), e.workloadUid())
              .isEqualTo(PreemptionReason.InCohortReclamation);
        }
        pairs.add(pair);
      }
      // The operator stops the victims' pods; they are requeued with the eviction time.
      for (Eviction e : r.evictions()) {
        c.engine.workloadEvicted(e.workloadUid(), c.now += 1);
        c.checkQuota();
      }
    }
    assertThat(quietCycles).as("preemption settles on a stable input").isEqualTo(3);
    Statistics.label("preemptions")
        .collect(pairs.isEmpty() ? "none" : pairs.size() < 3 ? "1-2" : "3+");
  }

  /**
   * The shrunk sample of seed 5553114057537465590: w002, back in cq1 under its nominal quota,
   * reclaims from cq0 in the cycle in which cq0's lowest-priority workload w003 is admitted. It
   * waits one cycle and takes w003, not w004 (which evicted it).
   */
  @Example
  void aReclaimWaitsForTheCyclesAdmissionsAndTakesTheLowestPriority() {
    Cluster c =
        new Cluster(
            List.of(
                new QueueConfig(
                    2,
                    null,
                    WithinClusterQueue.LowerPriority,
                    ReclaimWithinCohort.LowerPriority,
                    BorrowWithinCohort.Never,
                    null),
                new QueueConfig(
                    2,
                    null,
                    WithinClusterQueue.LowerPriority,
                    ReclaimWithinCohort.Any,
                    BorrowWithinCohort.Never,
                    null)),
            List.of(new Job(0, 0, 1), new Job(1, 0, 2), new Job(1, 0, 1)));
    List.of(new Job(0, 2, 2), new Job(0, 3, 1), new Job(0, 3, 3), new Job(1, 2, 1))
        .forEach(c::submit);
    List<String> evictions = settle(c);
    assertThat(evictions)
        .contains("w004>w002", "w003>w000", "w002>w003")
        .doesNotContain("w002>w004");
  }

  /**
   * A loop the property found: w008 preempts in cq1 and borrows, w004 reclaims while borrowing and
   * took cq1 below nominal, w003 reclaims that from cq0, and again. A borrowing preemptor now
   * leaves other queues at their nominal quota, and it settles.
   */
  @Example
  void aBorrowingPreemptorLeavesOtherQueuesAtNominalAndPreemptionSettles() {
    Cluster c =
        new Cluster(
            List.of(
                new QueueConfig(
                    6,
                    null,
                    WithinClusterQueue.Never,
                    ReclaimWithinCohort.LowerPriority,
                    BorrowWithinCohort.LowerPriority,
                    null),
                new QueueConfig(
                    4,
                    null,
                    WithinClusterQueue.LowerPriority,
                    ReclaimWithinCohort.Any,
                    BorrowWithinCohort.Never,
                    null)),
            List.of(new Job(0, 0, 1), new Job(0, 0, 2), new Job(0, 3, 1), new Job(1, 0, 2)));
    List.of(
            new Job(0, 3, 3),
            new Job(0, 4, 1),
            new Job(0, 4, 2),
            new Job(1, 2, 1),
            new Job(1, 2, 3),
            new Job(1, 3, 1))
        .forEach(c::submit);
    List<String> evictions = settle(c);
    assertThat(evictions).doesNotHaveDuplicates();
  }

  /** Cycles until three pass without an eviction; the evictions as preemptor>victim, in order. */
  private static List<String> settle(Cluster c) {
    List<String> out = new ArrayList<>();
    int quiet = 0;
    for (int i = 0; i < 60 && quiet < 3; i++) {
      CycleResult r = c.engine.runCycle(c.now += 10);
      c.checkQuota();
      quiet = r.evictions().isEmpty() ? quiet + 1 : 0;
      for (Eviction e : r.evictions()) {
        out.add(e.preemptorUid() + ">" + e.workloadUid());
        c.engine.workloadEvicted(e.workloadUid(), c.now += 1);
      }
    }
    assertThat(quiet).as("preemption settles").isEqualTo(3);
    return out;
  }

  /** One step of a random stream: 0-2 submit, 3-4 cycle, 5 finish, 6 delete pending, 7 rollback. */
  record Op(int kind, int a, Job job) {}

  @Provide
  Arbitrary<Op> op() {
    return Combinators.combine(
            Arbitraries.integers().between(0, 7),
            Arbitraries.integers().between(0, 1000),
            preemptor())
        .as(Op::new);
  }

  /**
   * Random streams with preemption on, where the operator completes every requested eviction a
   * little later: quota limits hold at every step (reservations and held quota included), nothing
   * is admitted twice, and a preemptor is admitted only once none of its victims holds quota.
   */
  @Property(tries = 500)
  void quotaHoldsAndNothingIsDoubleBookedUnderPreemption(
      @ForAll @Size(min = 1, max = 3) List<@From("queue") QueueConfig> queues,
      @ForAll @Size(min = 3, max = 10) List<@From("job") Job> running,
      @ForAll @Size(min = 1, max = 40) List<@From("op") Op> ops) {
    Cluster c = new Cluster(queues, running);
    Set<String> admitted =
        new HashSet<>(
            c.engine.quotaStore().admitted().stream().map(a -> a.workload.uid()).toList());
    Map<String, String> victimOf = new java.util.HashMap<>();
    List<String> evicting = new ArrayList<>();
    int[] evictions = {0};
    Admission last = null;
    for (Op op : ops) {
      switch (op.kind()) {
        case 0, 1, 2 -> c.submit(op.job());
        case 5 ->
            pick(admitted, op.a())
                .ifPresent(
                    uid -> {
                      c.engine.workloadFinished(uid);
                      admitted.remove(uid);
                      evicting.remove(uid);
                    });
        case 6 -> {
          List<String> pending = new ArrayList<>(c.engine.pendingQueues().pendingUids());
          java.util.Collections.sort(pending);
          if (!pending.isEmpty()) {
            c.engine.removeWorkload(pending.get(op.a() % pending.size()));
          }
        }
        case 7 -> {
          if (last != null
              && admitted.contains(last.workloadUid())
              && !evicting.contains(last.workloadUid())) {
            c.engine.rollback(last);
            admitted.remove(last.workloadUid());
          }
        }
        default -> {
          // The operator finishes the evictions asked for in the previous cycle, then a cycle runs.
          for (String uid : evicting) {
            c.engine.workloadEvicted(uid, c.now += 1);
            admitted.remove(uid);
            c.checkQuota();
          }
          evicting.clear();
          CycleResult r = c.engine.runCycle(c.now += 10);
          for (Eviction e : r.evictions()) {
            assertThat(admitted)
                .as("evicted %s holds quota", e.workloadUid())
                .contains(e.workloadUid());
            assertThat(evicting)
                .as("eviction of %s asked for once", e.workloadUid())
                .doesNotContain(e.workloadUid());
            evicting.add(e.workloadUid());
            // The operator wrote Evicted: the engine stops asking.
            c.engine.evictionObserved(e.workloadUid());
            evictions[0]++;
            victimOf.put(e.workloadUid(), e.preemptorUid());
          }
          for (Admission a : r.admissions()) {
            assertThat(admitted.add(a.workloadUid()))
                .as("%s admitted twice", a.workloadUid())
                .isTrue();
            for (Map.Entry<String, String> v : victimOf.entrySet()) {
              if (v.getValue().equals(a.workloadUid())) {
                assertThat(admitted)
                    .as("%s admitted while its victim %s holds quota", a.workloadUid(), v.getKey())
                    .doesNotContain(v.getKey());
              }
            }
            last = a;
          }
          victimOf
              .values()
              .removeIf(p -> r.admissions().stream().anyMatch(a -> a.workloadUid().equals(p)));
        }
      }
      c.checkQuota();
      assertThat(c.engine.admittedCount()).isEqualTo(admitted.size());
    }
    Statistics.label("stream")
        .collect(
            evictions[0] == 0
                ? "no preemption"
                : evictions[0] < 3 ? "1-2 evictions" : "3+ evictions");
  }

  private static java.util.Optional<String> pick(Set<String> s, int index) {
    if (s.isEmpty()) {
      return java.util.Optional.empty();
    }
    List<String> sorted = new ArrayList<>(s);
    java.util.Collections.sort(sorted);
    return java.util.Optional.of(sorted.get(index % sorted.size()));
  }

  /** An engine with the queues in cohort "c", the running jobs admitted with preemption off. */
  static final class Cluster {
    final AdmissionEngine engine;
    final List<ClusterQueue> specs = new ArrayList<>();
    long now = 100;
    int next;

    Cluster(List<QueueConfig> queues, List<Job> running) {
      this(queues, running, new AdmissionEngine(), null);
    }

    /** With the given engine and, when not null, fair-sharing weights (thousandths) per queue. */
    Cluster(
        List<QueueConfig> queues, List<Job> running, AdmissionEngine engine, List<Long> weights) {
      this.engine = engine;
      engine.upsertResourceFlavor(ResourceFlavor.named("f"));
      engine.upsertNamespace("ns", Map.of());
      for (int i = 0; i < queues.size(); i++) {
        QueueConfig q = queues.get(i);
        Long bl = q.borrowingLimit() == null ? null : q.borrowingLimit() * 1000L;
        specs.add(
            new ClusterQueue(
                "cq" + i,
                "c",
                List.of(
                    new ResourceGroup(
                        List.of("cpu"),
                        List.of(
                            new FlavorQuotas(
                                "f",
                                List.of(
                                    new ResourceQuota("cpu", q.nominal() * 1000L, bl, null)))))),
                QueueingStrategy.BestEffortFIFO,
                LabelSelector.ALL,
                FlavorFungibility.DEFAULT,
                new PreemptionPolicy(q.within(), q.reclaim(), q.borrow(), q.threshold()),
                StopPolicy.None,
                weights == null ? 1000L : weights.get(i % weights.size())));
        engine.upsertClusterQueue(withoutPreemption(specs.get(i)));
        engine.upsertLocalQueue(new LocalQueue("ns", "lq" + i, "cq" + i, StopPolicy.None));
      }
      // One admission cycle per job, so admission times differ.
      for (Job j : running) {
        submit(j);
        engine.runCycle(now += 10);
      }
      specs.forEach(engine::upsertClusterQueue);
      // Preemptions among the running jobs are written (the Workloads show Evicted) and stop there.
      engine.runCycle(now += 10).evictions().forEach(e -> engine.evictionObserved(e.workloadUid()));
    }

    private static ClusterQueue withoutPreemption(ClusterQueue s) {
      return new ClusterQueue(
          s.name(),
          s.cohort(),
          s.resourceGroups(),
          s.queueingStrategy(),
          s.namespaceSelector(),
          s.flavorFungibility(),
          PreemptionPolicy.NEVER,
          s.stopPolicy());
    }

    /**
     * Reserved and held quota included, no queue exceeds its limits and the cohort is not
     * overdrawn.
     */
    void checkQuota() {
      long used = 0;
      long pool = 0;
      for (ClusterQueue spec : specs) {
        ResourceQuota q = spec.resourceGroups().get(0).flavors().get(0).resources().get(0);
        long u = engine.status().usage(spec.name(), "f", "cpu");
        if (q.borrowingLimit() != null) {
          assertThat(u)
              .as("usage of %s within nominal + borrowingLimit", spec.name())
              .isLessThanOrEqualTo(q.nominalQuota() + q.borrowingLimit());
        }
        used += u;
        pool += q.nominalQuota();
      }
      assertThat(used).as("cohort usage within its quota").isLessThanOrEqualTo(pool);
    }

    String queueOf(Job j) {
      return "cq" + (j.queue() % specs.size());
    }

    Workload submit(Job j) {
      String uid = String.format("w%03d", next++);
      Workload w =
          new Workload(
              uid,
              "ns",
              uid,
              "lq" + (j.queue() % specs.size()),
              j.priority(),
              now,
              List.of(new PodSet("main", j.pods(), null, Map.of("cpu", 1000L), null, null, null)));
      engine.upsertWorkload(w);
      return w;
    }

    void remove(AdmittedWorkload w) {
      QuotaNode n = engine.quotaStore().find(w.clusterQueue).node;
      for (int k = 0; k < w.frs.length; k++) {
        QuotaTree.removeUsage(n, w.frs[k], w.usage[k]);
      }
    }

    void restore(AdmittedWorkload w) {
      QuotaNode n = engine.quotaStore().find(w.clusterQueue).node;
      for (int k = 0; k < w.frs.length; k++) {
        QuotaTree.addUsage(n, w.frs[k], w.usage[k]);
      }
    }
  }
}
