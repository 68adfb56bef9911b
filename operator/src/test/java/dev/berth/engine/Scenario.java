package dev.berth.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.engine.model.LocalQueue;
import dev.berth.engine.model.PendingReason;
import dev.berth.engine.model.PodSet;
import dev.berth.engine.model.Workload;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * One named table case: a cluster, pending and running workloads, optional later steps (each
 * followed by a cycle), and the expected decisions.
 */
final class Scenario {
  final String name;
  private final List<Builders.FlavorBuilder> flavors = new ArrayList<>();
  private final List<Builders.QueueBuilder> queues = new ArrayList<>();
  private final List<Builders.CohortBuilder> cohorts = new ArrayList<>();
  private final List<LocalQueue> localQueues = new ArrayList<>();
  private final Map<String, Map<String, String>> namespaces =
      new LinkedHashMap<>(Map.of("default", Map.of()));
  private final List<Object[]> running = new ArrayList<>();
  private final List<Builders.WorkloadBuilder> pending = new ArrayList<>();
  private final List<Consumer<AdmissionEngine>> steps = new ArrayList<>();
  private final List<Consumer<Outcome>> expectations = new ArrayList<>();
  private EntryOrdering ordering = new BorrowingLastOrdering();
  private PreemptionPlanner planner = new ClassicalPreemption();
  private boolean blockAdmission;

  /** What happened: every admission and eviction over all cycles, and the engine after them. */
  record Outcome(AdmissionEngine engine, List<Admission> admissions, List<Eviction> evictions) {
    Admission admission(String name) {
      return admissions.stream()
          .filter(a -> a.name().equals(name))
          .findFirst()
          .orElseThrow(() -> new AssertionError(name + " was not admitted; admitted: " + names()));
    }

    List<String> names() {
      return admissions.stream().map(Admission::name).toList();
    }
  }

  private Scenario(String name) {
    this.name = name;
  }

  static Scenario named(String name) {
    return new Scenario(name);
  }

  Scenario flavors(Builders.FlavorBuilder... f) {
    flavors.addAll(Arrays.asList(f));
    return this;
  }

  Scenario queues(Builders.QueueBuilder... q) {
    queues.addAll(Arrays.asList(q));
    return this;
  }

  Scenario cohorts(Builders.CohortBuilder... c) {
    cohorts.addAll(Arrays.asList(c));
    return this;
  }

  Scenario localQueues(LocalQueue... l) {
    localQueues.addAll(Arrays.asList(l));
    return this;
  }

  Scenario namespace(String ns, String... labels) {
    Map<String, String> m = new HashMap<>();
    for (int i = 0; i < labels.length; i += 2) {
      m.put(labels[i], labels[i + 1]);
    }
    namespaces.put(ns, m);
    return this;
  }

  /** A workload already admitted in cq with every resource on the flavor. */
  Scenario running(Builders.WorkloadBuilder w, String cq, String flavor) {
    return running(w, cq, flavor, 0);
  }

  /** A workload admitted in cq at admittedAt with every resource on the flavor. */
  Scenario running(Builders.WorkloadBuilder w, String cq, String flavor, long admittedAt) {
    running.add(new Object[] {w, cq, flavor, admittedAt});
    return this;
  }

  Scenario pending(Builders.WorkloadBuilder... w) {
    pending.addAll(Arrays.asList(w));
    return this;
  }

  /** The engine's entry ordering (default BorrowingLastOrdering). */
  Scenario ordering(EntryOrdering o) {
    ordering = o;
    return this;
  }

  /**
   * The engine's preemption planner (default ClassicalPreemption, fair with FairSharingOrdering).
   */
  Scenario planner(PreemptionPlanner p) {
    planner = p;
    return this;
  }

  /** waitForPodsReady blockAdmission on from the start. */
  Scenario blockAdmission() {
    blockAdmission = true;
    return this;
  }

  Scenario then(Consumer<AdmissionEngine> step) {
    steps.add(step);
    return this;
  }

  Scenario admits(String... names) {
    expectations.add(o -> assertThat(o.names()).as("admitted").containsExactlyInAnyOrder(names));
    return this;
  }

  Scenario admitsInOrder(String... names) {
    expectations.add(o -> assertThat(o.names()).as("admission order").containsExactly(names));
    return this;
  }

  Scenario assigns(String workload, String podSet, String resource, String flavor) {
    expectations.add(
        o ->
            assertThat(podSet(o, workload, podSet).flavors().get(resource))
                .as("flavor of %s %s %s", workload, podSet, resource)
                .isEqualTo(flavor));
    return this;
  }

  Scenario count(String workload, String podSet, int count) {
    expectations.add(
        o -> assertThat(podSet(o, workload, podSet).count()).as("count").isEqualTo(count));
    return this;
  }

  Scenario borrows(String workload, String resource, String quantity) {
    expectations.add(
        o -> {
          long total =
              o.admission(workload).podSetAssignments().stream()
                  .mapToLong(p -> p.borrowed().getOrDefault(resource, 0L))
                  .sum();
          assertThat(total)
              .as("borrowed %s by %s", resource, workload)
              .isEqualTo(Builders.q(resource, quantity));
        });
    return this;
  }

  Scenario pendingWith(String workload, PendingReason reason, String messagePart) {
    expectations.add(
        o -> {
          PendingStatus s = o.engine().status().pendingStatus(workload);
          assertThat(s).as("pending status of " + workload).isNotNull();
          assertThat(s.reason()).as("reason of %s (%s)", workload, s.message()).isEqualTo(reason);
          assertThat(s.message()).as("message of " + workload).contains(messagePart);
        });
    return this;
  }

  Scenario evicts(String uid, EvictionReason reason) {
    expectations.add(
        o ->
            assertThat(o.evictions())
                .as("evictions")
                .anyMatch(e -> e.workloadUid().equals(uid) && e.reason() == reason));
    return this;
  }

  /** uid was preempted, for that reason, to admit preemptor. */
  Scenario preempts(String uid, PreemptionReason reason, String preemptor) {
    expectations.add(
        o ->
            assertThat(o.evictions())
                .as("evictions")
                .anyMatch(
                    e ->
                        e.workloadUid().equals(uid)
                            && e.reason() == EvictionReason.Preempted
                            && e.preemptionReason() == reason
                            && preemptor.equals(e.preemptorUid())));
    return this;
  }

  /** Exactly these workloads were evicted, over all cycles (each once). */
  Scenario evictsExactly(String... uids) {
    expectations.add(
        o ->
            assertThat(o.evictions())
                .extracting(Eviction::workloadUid)
                .as("evicted")
                .containsExactlyInAnyOrder(uids));
    return this;
  }

  Scenario usage(String cq, String flavor, String resource, String quantity) {
    expectations.add(
        o ->
            assertThat(o.engine().status().usage(cq, flavor, resource))
                .as("usage of %s %s/%s", cq, flavor, resource)
                .isEqualTo(Builders.q(resource, quantity)));
    return this;
  }

  Scenario check(Consumer<Outcome> c) {
    expectations.add(c);
    return this;
  }

  private static PodSetAssignment podSet(Outcome o, String workload, String podSet) {
    return o.admission(workload).podSetAssignments().stream()
        .filter(p -> p.name().equals(podSet))
        .findFirst()
        .orElseThrow();
  }

  Outcome run() {
    AdmissionEngine engine = new AdmissionEngine(ordering, planner);
    engine.blockAdmissionUntilPodsReady(blockAdmission);
    flavors.forEach(f -> engine.upsertResourceFlavor(f.build()));
    cohorts.forEach(c -> engine.upsertCohort(c.build()));
    queues.forEach(q -> engine.upsertClusterQueue(q.build()));
    namespaces.forEach(engine::upsertNamespace);
    if (localQueues.isEmpty() && !queues.isEmpty()) {
      localQueues.add(Builders.localQueue("lq", queues.get(0).build().name()));
    }
    localQueues.forEach(engine::upsertLocalQueue);
    for (Object[] r : running) {
      Workload w = ((Builders.WorkloadBuilder) r[0]).build();
      List<PodSetAssignment> ps = new ArrayList<>();
      for (PodSet p : w.podSets()) {
        Map<String, String> fl = new HashMap<>();
        Map<String, Long> use = new HashMap<>();
        p.requests()
            .forEach(
                (res, v) -> {
                  fl.put(res, (String) r[2]);
                  use.put(res, v * p.count());
                });
        ps.add(new PodSetAssignment(p.name(), fl, use, p.count(), Map.of()));
      }
      engine.recordAdmitted(w, (String) r[1], ps, (Long) r[3]);
    }
    pending.forEach(w -> engine.upsertWorkload(w.build()));
    List<Admission> admissions = new ArrayList<>();
    List<Eviction> evictions = new ArrayList<>();
    long now = 1000;
    CycleResult r = engine.runCycle(now);
    admissions.addAll(r.admissions());
    observe(engine, r, evictions);
    for (Consumer<AdmissionEngine> step : steps) {
      step.accept(engine);
      r = engine.runCycle(++now);
      admissions.addAll(r.admissions());
      observe(engine, r, evictions);
    }
    Outcome o = new Outcome(engine, admissions, evictions);
    expectations.forEach(e -> e.accept(o));
    return o;
  }

  /** Plays the operator whose eviction writes succeed: each eviction is asked for once. */
  private static void observe(AdmissionEngine engine, CycleResult r, List<Eviction> evictions) {
    for (Eviction e : r.evictions()) {
      evictions.add(e);
      engine.evictionObserved(e.workloadUid());
    }
  }

  @Override
  public String toString() {
    return name;
  }
}
