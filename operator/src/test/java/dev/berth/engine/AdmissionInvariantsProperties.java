package dev.berth.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.engine.model.ClusterQueue;
import dev.berth.engine.model.Cohort;
import dev.berth.engine.model.FlavorFungibility;
import dev.berth.engine.model.FlavorQuotas;
import dev.berth.engine.model.LabelSelector;
import dev.berth.engine.model.LocalQueue;
import dev.berth.engine.model.PodSet;
import dev.berth.engine.model.QueueingStrategy;
import dev.berth.engine.model.ResourceFlavor;
import dev.berth.engine.model.ResourceGroup;
import dev.berth.engine.model.ResourceQuota;
import dev.berth.engine.model.StopPolicy;
import dev.berth.engine.model.Workload;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.Size;

/**
 * Random clusters and workload streams; after every step: no ClusterQueue uses more than nominal +
 * borrowingLimit, no tree lends more than its lendingLimits allow, admissions are whole, StrictFIFO
 * never admits past its head, the engine's usage matches the admissions, and the same inputs give
 * the same decisions.
 */
class AdmissionInvariantsProperties {
  private static final String[] FLAVORS = {"f1", "f2"};

  /** One ClusterQueue: cohort 0 = none; nominal2 < 0 = no second flavor; limits in cpu. */
  record QueueConfig(
      int cohort,
      boolean strict,
      int nominal1,
      int nominal2,
      Integer borrowingLimit,
      Integer lendingLimit,
      boolean tryNextFlavor) {}

  /** One step: 0-3 add, 4 finish, 5-6 cycle, 7 rollback, 8 evict, 9 delete pending. */
  record Op(int kind, int a, int b, int c) {}

  @Provide
  Arbitrary<QueueConfig> queue() {
    return Combinators.combine(
            Arbitraries.integers().between(0, 2),
            Arbitraries.of(true, false),
            Arbitraries.integers().between(0, 8),
            Arbitraries.integers().between(-1, 6),
            Arbitraries.integers().between(0, 6).injectNull(0.5),
            Arbitraries.integers().between(0, 8).injectNull(0.5),
            Arbitraries.of(true, false))
        .as(QueueConfig::new);
  }

  @Provide
  Arbitrary<Op> op() {
    return Combinators.combine(
            Arbitraries.integers().between(0, 9),
            Arbitraries.integers().between(0, 1000),
            Arbitraries.integers().between(0, 1000),
            Arbitraries.integers().between(0, 1000))
        .as(Op::new);
  }

  @Property(tries = 300)
  void invariantsHoldAfterEveryStep(
      @ForAll @Size(min = 1, max = 6) List<@net.jqwik.api.From("queue") QueueConfig> queues,
      @ForAll boolean nested,
      @ForAll @Size(min = 1, max = 80) List<@net.jqwik.api.From("op") Op> ops) {
    List<String> first = new Run(queues, nested).play(ops);
    List<String> second = new Run(queues, nested).play(ops);
    assertThat(second).as("same inputs, same decisions").isEqualTo(first);
  }

  /** One replay of a stream against a fresh engine, checking invariants as it goes. */
  private static final class Run {
    private final List<QueueConfig> configs;
    private final boolean nested;
    private final AdmissionEngine engine = new AdmissionEngine();
    private final List<ClusterQueue> specs = new ArrayList<>();
    private final Map<String, Workload> pending = new LinkedHashMap<>();
    private final Map<String, Workload> admittedSpecs = new LinkedHashMap<>();
    private final Map<String, Admission> admitted = new LinkedHashMap<>();
    private final List<String> log = new ArrayList<>();
    private Admission lastAdmission;
    private int next;
    private long now;

    Run(List<QueueConfig> configs, boolean nested) {
      this.configs = configs;
      this.nested = nested;
      for (String f : FLAVORS) {
        engine.upsertResourceFlavor(ResourceFlavor.named(f));
      }
      if (nested) {
        engine.upsertCohort(new Cohort("c1", "root", List.of()));
        engine.upsertCohort(new Cohort("c2", "root", List.of()));
        engine.upsertCohort(
            new Cohort(
                "root",
                null,
                List.of(
                    new ResourceGroup(
                        List.of("cpu"),
                        List.of(new FlavorQuotas("f1", List.of(ResourceQuota.of("cpu", 2000))))))));
      }
      engine.upsertNamespace("ns", Map.of());
      for (int i = 0; i < configs.size(); i++) {
        QueueConfig c = configs.get(i);
        ClusterQueue spec = spec(i, c);
        specs.add(spec);
        engine.upsertClusterQueue(spec);
        engine.upsertLocalQueue(new LocalQueue("ns", "lq" + i, spec.name(), StopPolicy.None));
      }
    }

    private static ClusterQueue spec(int i, QueueConfig c) {
      boolean cohort = c.cohort() > 0;
      List<FlavorQuotas> fl = new ArrayList<>();
      fl.add(new FlavorQuotas("f1", List.of(quota(c.nominal1(), cohort, c))));
      if (c.nominal2() >= 0) {
        fl.add(new FlavorQuotas("f2", List.of(quota(c.nominal2(), cohort, c))));
      }
      FlavorFungibility fungibility =
          c.tryNextFlavor()
              ? new FlavorFungibility(FlavorFungibility.WhenCanBorrow.TryNextFlavor, null, null)
              : FlavorFungibility.DEFAULT;
      return new ClusterQueue(
          "cq" + i,
          cohort ? "c" + c.cohort() : null,
          List.of(new ResourceGroup(List.of("cpu"), fl)),
          c.strict() ? QueueingStrategy.StrictFIFO : QueueingStrategy.BestEffortFIFO,
          LabelSelector.ALL,
          fungibility,
          null,
          StopPolicy.None);
    }

    private static ResourceQuota quota(int nominal, boolean cohort, QueueConfig c) {
      Long bl = cohort && c.borrowingLimit() != null ? c.borrowingLimit() * 1000L : null;
      Long ll =
          cohort && c.lendingLimit() != null ? Math.min(c.lendingLimit(), nominal) * 1000L : null;
      return new ResourceQuota("cpu", nominal * 1000L, bl, ll);
    }

    List<String> play(List<Op> ops) {
      for (Op op : ops) {
        now += 10;
        step(op);
        checkInvariants();
      }
      cycle();
      checkInvariants();
      return log;
    }

    private void step(Op op) {
      switch (op.kind()) {
        case 0, 1, 2, 3 -> add(op);
        case 4 ->
            pick(admitted, op.a())
                .ifPresent(
                    uid -> {
                      engine.workloadFinished(uid);
                      admitted.remove(uid);
                      admittedSpecs.remove(uid);
                      log.add("finish " + uid);
                    });
        case 7 -> {
          if (lastAdmission != null && admitted.containsKey(lastAdmission.workloadUid())) {
            String uid = lastAdmission.workloadUid();
            assertThat(engine.rollback(lastAdmission)).isTrue();
            admitted.remove(uid);
            pending.put(uid, admittedSpecs.remove(uid));
            log.add("rollback " + uid);
          }
        }
        case 8 ->
            pick(admitted, op.a())
                .ifPresent(
                    uid -> {
                      engine.workloadEvicted(uid, now);
                      admitted.remove(uid);
                      Workload w = admittedSpecs.remove(uid);
                      pending.put(
                          uid,
                          new Workload(
                              w.uid(),
                              w.namespace(),
                              w.name(),
                              w.queueName(),
                              w.priority(),
                              now,
                              w.podSets()));
                      log.add("evict " + uid);
                    });
        case 9 ->
            pick(pending, op.a())
                .ifPresent(
                    uid -> {
                      engine.removeWorkload(uid);
                      pending.remove(uid);
                      log.add("delete " + uid);
                    });
        default -> cycle();
      }
    }

    private static java.util.Optional<String> pick(Map<String, ?> m, int index) {
      if (m.isEmpty()) {
        return java.util.Optional.empty();
      }
      return java.util.Optional.of(new ArrayList<>(m.keySet()).get(index % m.size()));
    }

    private void add(Op op) {
      int q = op.a() % configs.size();
      List<PodSet> podSets = new ArrayList<>();
      int sets = op.b() % 3 == 0 ? 2 : 1;
      for (int s = 0; s < sets; s++) {
        int count = 1 + (op.c() + s) % 4;
        long cpu = 1000L * (1 + (op.a() + op.b() + s) % 3) / (op.c() % 5 == 0 ? 2 : 1);
        Integer min = s == 0 && op.c() % 3 == 0 && count > 1 ? 1 : null;
        podSets.add(new PodSet("ps" + s, count, min, Map.of("cpu", cpu), null, null, null));
      }
      String uid = String.format("w%04d", next++);
      Workload w =
          new Workload(uid, "ns", uid, "lq" + q, op.b() % 4, now - (op.c() % 3) * 5, podSets);
      engine.upsertWorkload(w);
      pending.put(uid, w);
    }

    private void cycle() {
      Map<String, Workload> before = new HashMap<>(pending);
      CycleResult r = engine.runCycle(now);
      for (Admission a : r.admissions()) {
        Workload w = pending.remove(a.workloadUid());
        assertThat(w).as("admitted %s was pending", a.workloadUid()).isNotNull();
        assertThat(admitted).doesNotContainKey(a.workloadUid());
        checkWhole(w, a);
        admitted.put(a.workloadUid(), a);
        admittedSpecs.put(a.workloadUid(), w);
        lastAdmission = a;
        log.add("admit " + a);
      }
      checkStrictFifo(before, r.admissions());
      assertThat(r.evictions()).as("no preemption or drain in this stream").isEmpty();
    }

    /** Every podSet is assigned, with its full count unless minCount allows less. */
    private static void checkWhole(Workload w, Admission a) {
      assertThat(a.podSetAssignments()).hasSize(w.podSets().size());
      for (int i = 0; i < w.podSets().size(); i++) {
        PodSet ps = w.podSets().get(i);
        PodSetAssignment pa = a.podSetAssignments().get(i);
        assertThat(pa.name()).isEqualTo(ps.name());
        int min = ps.minCount() == null ? ps.count() : ps.minCount();
        assertThat(pa.count()).isBetween(min, ps.count());
        assertThat(pa.resourceUsage())
            .isEqualTo(Map.of("cpu", ps.requests().get("cpu") * pa.count()));
        assertThat(pa.flavors()).containsOnlyKeys("cpu");
      }
    }

    /** A StrictFIFO queue admits nothing that sorts after a workload it leaves pending. */
    private void checkStrictFifo(Map<String, Workload> before, List<Admission> admissions) {
      for (Admission a : admissions) {
        if (!strict(a.clusterQueue())) {
          continue;
        }
        Workload admittedW = before.get(a.workloadUid());
        for (Workload p : pending.values()) {
          if (before.containsKey(p.uid()) && queueOf(p).equals(a.clusterQueue())) {
            assertThat(sortsBefore(p, admittedW))
                .as(
                    "StrictFIFO %s admitted %s past pending %s",
                    a.clusterQueue(), admittedW.uid(), p.uid())
                .isFalse();
          }
        }
      }
    }

    private boolean strict(String cq) {
      return specs.get(Integer.parseInt(cq.substring(2))).queueingStrategy()
          == QueueingStrategy.StrictFIFO;
    }

    private static String queueOf(Workload w) {
      return "cq" + w.queueName().substring(2);
    }

    private static boolean sortsBefore(Workload a, Workload b) {
      if (a.priority() != b.priority()) {
        return a.priority() > b.priority();
      }
      if (a.queueTimestamp() != b.queueTimestamp()) {
        return a.queueTimestamp() < b.queueTimestamp();
      }
      return a.uid().compareTo(b.uid()) < 0;
    }

    private void checkInvariants() {
      Map<String, Long> ledger = new HashMap<>();
      for (Admission a : admitted.values()) {
        for (PodSetAssignment pa : a.podSetAssignments()) {
          ledger.merge(
              a.clusterQueue() + "/" + pa.flavors().get("cpu"),
              pa.resourceUsage().get("cpu"),
              Long::sum);
        }
      }
      Map<String, long[]> byTree = new HashMap<>();
      for (int i = 0; i < specs.size(); i++) {
        ClusterQueue spec = specs.get(i);
        int pendingHere = 0;
        for (Workload p : pending.values()) {
          if (queueOf(p).equals(spec.name())) {
            pendingHere++;
          }
        }
        assertThat(engine.status().clusterQueueCounts(spec.name()).pending())
            .as("pending count of %s", spec.name())
            .isEqualTo(pendingHere);
        for (FlavorQuotas fq : spec.resourceGroups().get(0).flavors()) {
          ResourceQuota q = fq.resources().get(0);
          long usage = ledger.getOrDefault(spec.name() + "/" + fq.name(), 0L);
          assertThat(engine.status().usage(spec.name(), fq.name(), "cpu"))
              .as("engine usage of %s/%s", spec.name(), fq.name())
              .isEqualTo(usage);
          long max =
              spec.cohort() == null
                  ? q.nominalQuota()
                  : q.borrowingLimit() == null
                      ? Long.MAX_VALUE
                      : q.nominalQuota() + q.borrowingLimit();
          assertThat(usage)
              .as("%s/%s usage <= nominal + borrowingLimit", spec.name(), fq.name())
              .isLessThanOrEqualTo(max);
          if (spec.cohort() == null) {
            continue;
          }
          // Pool check: what queues use beyond what they keep must fit in what they (and the
          // cohorts) put into the pool, so nobody lent more than its lendingLimit.
          long guaranteed = q.lendingLimit() == null ? 0 : q.nominalQuota() - q.lendingLimit();
          String tree = (nested ? "root" : spec.cohort()) + "/" + fq.name();
          long[] t = byTree.computeIfAbsent(tree, k -> new long[2]);
          t[0] += Math.max(0, usage - guaranteed);
          t[1] += q.nominalQuota() - guaranteed;
        }
      }
      if (nested && byTree.containsKey("root/f1")) {
        byTree.get("root/f1")[1] += 2000;
      }
      byTree.forEach(
          (tree, t) ->
              assertThat(t[0])
                  .as("usage in pool of %s within what was lent", tree)
                  .isLessThanOrEqualTo(t[1]));
      assertThat(Objects.requireNonNull(engine).admittedCount()).isEqualTo(admitted.size());
      assertThat(engine.quotaHolderUids()).containsExactlyInAnyOrderElementsOf(admitted.keySet());
      assertThat(engine.pendingCount()).isEqualTo(pending.size());
    }
  }
}
