package dev.berth.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.engine.model.ClusterQueue;
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
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.From;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/**
 * Random teams (quota, weight, policies, minimum runtime) in one cohort with fair sharing on, and
 * random arrivals and finishes over fifteen minutes: no workload is preempted by another queue
 * before its queue's minimum runtime has passed since its admission, and once arrivals and finishes
 * stop the preemptions stop too (no loop like Kueue issue 14543's).
 */
class MinimumRuntimeProperties {

  /** A team's ClusterQueue: nominal cpu, weight, policies, minimum runtime in seconds. */
  record Team(
      int nominal,
      int weight,
      ReclaimWithinCohort reclaim,
      WithinClusterQueue within,
      int minimumRuntimeSeconds) {}

  /** A workload: its team (index modulo the team count), priority, cpu, arrival and run time. */
  record Arrival(int team, int priority, int cpu, int at, int runsFor) {}

  @Provide
  Arbitrary<Team> team() {
    return Combinators.combine(
            Arbitraries.integers().between(0, 4),
            Arbitraries.integers().between(0, 3),
            Arbitraries.of(ReclaimWithinCohort.Any, ReclaimWithinCohort.LowerPriority),
            Arbitraries.of(WithinClusterQueue.LowerPriority, WithinClusterQueue.Never),
            Arbitraries.of(0, 30, 90))
        .as(Team::new);
  }

  @Provide
  Arbitrary<Arrival> arrival() {
    return Combinators.combine(
            Arbitraries.integers().between(0, 3),
            Arbitraries.integers().between(0, 3),
            Arbitraries.integers().between(1, 4),
            Arbitraries.integers().between(0, 300),
            Arbitraries.integers().between(10, 400))
        .as(Arrival::new);
  }

  /**
   * The strategy list Berth accepts: [LessThanOrEqualToFinalShare]. LessThanInitialShare, alone or
   * after it, is refused by the configuration: this property found both looping (see {@link
   * #twoTeamsSwappingTheirLargestWorkloads}, docs/fair-sharing.md).
   */
  @Provide
  Arbitrary<Integer> strategyIndex() {
    return Arbitraries.of(0);
  }

  /**
   * A case this property shrank to with both strategies: team 1's 4-cpu workload takes team 0's by
   * the initial-share rule, team 0's 1-cpu workload takes it back by the same rule, team 0 grows
   * back into the freed quota, and round it goes. Under the final-share rule alone it settles.
   */
  @Example
  void twoTeamsSwappingTheirLargestWorkloads() {
    noPreemptionWithinTheMinimumRuntimeAndNoLoop(
        List.of(
            new Team(0, 1, ReclaimWithinCohort.Any, WithinClusterQueue.LowerPriority, 0),
            new Team(0, 3, ReclaimWithinCohort.Any, WithinClusterQueue.LowerPriority, 0),
            new Team(1, 0, ReclaimWithinCohort.Any, WithinClusterQueue.LowerPriority, 0)),
        List.of(
            new Arrival(0, 0, 1, 0, 10),
            new Arrival(0, 1, 2, 0, 10),
            new Arrival(1, 0, 2, 0, 16),
            new Arrival(1, 1, 4, 0, 10)),
        0,
        3);
  }

  private static final List<List<FairSharingStrategy>> STRATEGIES =
      List.of(
          List.of(FairSharingStrategy.LessThanOrEqualToFinalShare),
          List.of(FairSharingStrategy.LessThanInitialShare),
          FairSharingPreemption.DEFAULT_STRATEGIES);

  @Property(tries = 1000)
  void noPreemptionWithinTheMinimumRuntimeAndNoLoop(
      @ForAll @Size(min = 2, max = 4) List<@From("team") Team> teams,
      @ForAll @Size(min = 1, max = 30) List<@From("arrival") Arrival> arrivals,
      @ForAll("strategyIndex") int strategies,
      @ForAll @IntRange(min = 0, max = 6) int lender) {
    AdmissionEngine engine =
        new AdmissionEngine(
            new FairSharingOrdering(), new FairSharingPreemption(STRATEGIES.get(strategies)));
    engine.upsertResourceFlavor(ResourceFlavor.named("f"));
    engine.upsertNamespace("ns", Map.of());
    // An idle lender: quota for everyone to borrow.
    engine.upsertClusterQueue(queue("lender", lender, 1000L, PreemptionPolicy.NEVER, 0));
    for (int i = 0; i < teams.size(); i++) {
      Team t = teams.get(i);
      engine.upsertClusterQueue(
          queue(
              "t" + i,
              t.nominal(),
              t.weight() * 1000L,
              new PreemptionPolicy(t.within(), t.reclaim(), BorrowWithinCohort.Never, null),
              t.minimumRuntimeSeconds() * 1000L));
      engine.upsertLocalQueue(new LocalQueue("ns", "lq" + i, "t" + i, StopPolicy.None));
    }
    Map<String, Integer> teamOf = new HashMap<>();
    Map<String, Long> admittedAt = new HashMap<>();
    Map<String, Long> finishesAt = new HashMap<>();
    Map<String, Arrival> byUid = new HashMap<>();
    int evictionsAtTheEnd = 0;
    // Arrivals and finishes over the first 300 s; then nothing but time passes, for 600 s more.
    for (long s = 0; s <= 900; s += 5) {
      long now = s * 1000;
      for (int k = 0; k < arrivals.size(); k++) {
        Arrival a = arrivals.get(k);
        if (a.at() / 5 * 5 == s) {
          String uid = "w" + k;
          int team = a.team() % teams.size();
          teamOf.put(uid, team);
          byUid.put(uid, a);
          engine.upsertWorkload(
              new Workload(
                  uid,
                  "ns",
                  uid,
                  "lq" + team,
                  a.priority(),
                  now,
                  List.of(
                      new PodSet(
                          "main", 1, null, Map.of("cpu", a.cpu() * 1000L), null, null, null))));
        }
      }
      if (s <= 300) {
        for (var f : List.copyOf(finishesAt.entrySet())) {
          if (f.getValue() <= now) {
            engine.workloadFinished(f.getKey());
            finishesAt.remove(f.getKey());
            admittedAt.remove(f.getKey());
          }
        }
      }
      CycleResult r = engine.runCycle(now);
      for (Admission a : r.admissions()) {
        admittedAt.put(a.workloadUid(), now);
        finishesAt.put(a.workloadUid(), now + byUid.get(a.workloadUid()).runsFor() * 1000L);
      }
      for (Eviction e : r.newEvictions()) {
        String victim = e.workloadUid();
        if (e.reason() == EvictionReason.Preempted
            && !teamOf.get(victim).equals(teamOf.get(e.preemptorUid()))) {
          long minimum = teams.get(teamOf.get(victim)).minimumRuntimeSeconds() * 1000L;
          assertThat(now - admittedAt.get(victim))
              .as("%s preempted %s before its minimum runtime", e.preemptorUid(), victim)
              .isGreaterThanOrEqualTo(minimum);
        }
        if (s > 800) {
          evictionsAtTheEnd++;
        }
      }
      for (Eviction e : r.evictions()) {
        engine.workloadEvicted(e.workloadUid(), now);
        admittedAt.remove(e.workloadUid());
        finishesAt.remove(e.workloadUid());
      }
    }
    // Nothing has arrived or finished for 500 s, longer than any minimum runtime: a loop of
    // preemptions would still be evicting.
    assertThat(evictionsAtTheEnd).as("preemptions settle once nothing changes").isZero();
  }

  /** A ClusterQueue of cohort "c" with {@code cpu} cpu on flavor "f". */
  static ClusterQueue queue(
      String name, int cpu, long weight, PreemptionPolicy policy, long minimumRuntimeMillis) {
    return queue(name, cpu, weight, policy, minimumRuntimeMillis, 0L);
  }

  /** As above, pausing its borrowing for {@code borrowBackoffMillis} after a reclaim. */
  static ClusterQueue queue(
      String name,
      int cpu,
      long weight,
      PreemptionPolicy policy,
      long minimumRuntimeMillis,
      long borrowBackoffMillis) {
    return new ClusterQueue(
        name,
        "c",
        List.of(
            new ResourceGroup(
                List.of("cpu"),
                List.of(
                    new FlavorQuotas(
                        "f", List.of(new ResourceQuota("cpu", cpu * 1000L, null, null)))))),
        QueueingStrategy.BestEffortFIFO,
        LabelSelector.ALL,
        null,
        policy,
        StopPolicy.None,
        weight,
        minimumRuntimeMillis,
        borrowBackoffMillis);
  }
}
