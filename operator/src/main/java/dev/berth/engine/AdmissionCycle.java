package dev.berth.engine;

import dev.berth.engine.flavor.Assignment;
import dev.berth.engine.flavor.FlavorAssigner;
import dev.berth.engine.flavor.FlavorMode;
import dev.berth.engine.model.Explanation;
import dev.berth.engine.model.PendingReason;
import dev.berth.engine.model.QueueingStrategy;
import dev.berth.engine.queue.Bucket;
import dev.berth.engine.queue.PendingWorkload;
import dev.berth.engine.quota.QuotaTree;
import dev.berth.engine.topology.TopologyState;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.PriorityQueue;
import java.util.Set;

/**
 * One admission cycle, in the numbered steps of the admission semantics, except that a queue's next
 * workload is nominated as soon as its head is decided, so everything that fits is admitted in one
 * pass in the same global order:
 *
 * <ol>
 *   <li>heads: the head of every ClusterQueue that had an event since it was last settled;
 *   <li>snapshot: the engine's quota tree; nothing else mutates it during a cycle (single thread);
 *   <li>nominate: flavor assignment of each head;
 *   <li>order: the {@link EntryOrdering};
 *   <li>apply: admit what still fits (re-assigned if quota changed since nomination) once its
 *       topology-aware podSets are placed on their flavors' nodes ({@link TopologyState}), or, in
 *       Preempt mode, ask the {@link PreemptionPlanner} for victims;
 *   <li>requeue: StrictFIFO blocks the queue, BestEffortFIFO parks the head's bucket; both wait for
 *       an event in their cohort tree.
 * </ol>
 */
final class AdmissionCycle {
  private final AdmissionEngine engine;
  private final FlavorAssigner assigner;
  private final Comparator<Entry> ordering;
  private final PreemptionPlanner planner;

  private final List<Admission> admissions = new ArrayList<>();
  private final List<Bucket> touched = new ArrayList<>();
  private final Set<String> claimedVictims = new HashSet<>();
  private final Set<String> admittedThisCycle = new HashSet<>();
  private int evaluations;

  AdmissionCycle(AdmissionEngine engine, EntryOrdering ordering, PreemptionPlanner planner) {
    this.engine = engine;
    // A preemptor whose victims are all gone goes first: the quota they freed is its own.
    this.ordering =
        (a, b) -> a.reserved != b.reserved ? (a.reserved ? -1 : 1) : ordering.compare(a, b);
    this.planner = planner;
    this.assigner = new FlavorAssigner(planner instanceof FairSharingPreemption);
  }

  CycleResult run(long now) {
    PriorityQueue<Entry> entries = new PriorityQueue<>(ordering);
    // 1. heads (and 2. snapshot: the tree is current; ensureTree ran before).
    for (ClusterQueueState cq : engine.takeDirty()) {
      if (!cq.admissible()) {
        continue;
      }
      cq.blocked = false;
      // 3. nominate
      Entry e = nominate(cq);
      if (e != null) {
        entries.add(e);
      }
    }
    // 4. order + 5. apply + 6. requeue, one entry at a time.
    Entry e;
    while ((e = entries.poll()) != null) {
      if (e.version != e.queue.node.version() && !stillFits(e)) {
        // Quota changed since nomination: re-assign, and go back in line if it now ranks later.
        e.assignment = assign(e.queue, e.bucket);
        e.version = e.queue.node.version();
        Entry next = entries.peek();
        if (next != null && ordering.compare(e, next) > 0) {
          entries.add(e);
          continue;
        }
      }
      if (e.reserved) {
        // Its reservation is spent: admitted now, or it starts over like any other entry.
        e.reserved = false;
        engine.cancelPreemption(e.queue);
      }
      FlavorMode mode = e.assignment.mode();
      TopologyState.Result placed = mode == FlavorMode.Fit ? engine.placeTopology(e) : null;
      if (placed != null && placed.refused() != null) {
        // Quota fits but the nodes do not: wait for capacity like any workload that does not fit.
        requeue(e, entries, placed.refused());
      } else if (mode == FlavorMode.Fit) {
        Admission admission = engine.admit(e, now, placed.podSets());
        admissions.add(admission);
        admittedThisCycle.add(admission.workloadUid());
        if (engine.admissionBlockedBy().isPresent()) {
          // blockAdmission: the new admission's pods are not ready yet; the rest waits for them.
          holdForPodsReady(e.queue, entries);
          break;
        }
        Entry following = nominate(e.queue);
        if (following != null) {
          entries.add(following);
        }
      } else if (mode == FlavorMode.Preempt) {
        Explanation notPreempting = preempt(e);
        if (notPreempting == null) {
          block(e.queue, e.bucket);
        } else {
          requeue(e, entries, notPreempting);
        }
      } else {
        requeue(e, entries, explain(e));
      }
    }
    return new CycleResult(admissions, engine.outstandingEvictions(), touched, engine, evaluations);
  }

  /**
   * Within a cycle quota only shrinks and a queue's own usage changes only when it admits (after
   * which its next entry is nominated afresh). So a Fit whose flavor-resources are all still
   * available is still the best choice, with the same borrowing: no need to re-assign.
   */
  private static boolean stillFits(Entry e) {
    Assignment a = e.assignment;
    if (a.mode() != FlavorMode.Fit) {
      return false;
    }
    for (int i = 0; i < a.frs().length; i++) {
      if (a.usage()[i] > QuotaTree.available(e.queue.node, a.frs()[i])) {
        return false;
      }
    }
    return true;
  }

  private Entry nominate(ClusterQueueState cq) {
    if (cq.blocked) {
      return null;
    }
    PendingPreemption p = cq.preemption;
    if (p != null) {
      // A preemptor keeps its place, even if a newcomer now sorts before it.
      PendingWorkload pw = engine.pending.get(p.preemptorUid);
      if (pw != null && pw.bucket().state() == Bucket.State.ACTIVE) {
        if (!p.ready) {
          block(cq, pw.bucket());
          return null;
        }
        Entry e = new Entry(cq, pw.bucket(), pw, assign(cq, pw.bucket()), cq.node.version());
        e.reserved = true;
        e.frs = engine.flavorResources();
        return e;
      }
      engine.cancelPreemption(cq);
    }
    Bucket head = cq.queue.headBucket();
    if (head == null) {
      return null;
    }
    Entry e = new Entry(cq, head, head.front(), assign(cq, head), cq.node.version());
    e.frs = engine.flavorResources();
    return e;
  }

  private Assignment assign(ClusterQueueState cq, Bucket bucket) {
    evaluations++;
    return assigner.assign(bucket.plan(cq.compiled), cq.node);
  }

  /** Requests the victims' evictions and returns null, or returns why it does not preempt. */
  private Explanation preempt(Entry e) {
    PreemptionContext ctx =
        new PreemptionContext(
            e,
            engine.queues(),
            engine.treeQueues(e.queue),
            engine.flavorResources(),
            admittedThisCycle);
    List<PreemptionPlanner.Victim> victims = planner.plan(ctx);
    if (victims.isEmpty()) {
      if (ctx.leftOutFreshAdmissions()) {
        // Workloads admitted in this cycle are no candidates; look again next cycle.
        engine.markDirty(e.queue);
      }
      return explain(e);
    }
    for (PreemptionPlanner.Victim v : victims) {
      if (claimedVictims.contains(v.uid())) {
        // An earlier entry already counts on these victims' quota.
        return explain(e);
      }
    }
    // Evicting victims whose nodes would not hold it anyway only restarts them: they would be
    // admitted again behind it, and evicted again on the next wake.
    Explanation unplaceable = engine.topologyRefusalAfterEvicting(e, victims);
    if (unplaceable != null) {
      return unplaceable;
    }
    List<String> names = new ArrayList<>(victims.size());
    for (PreemptionPlanner.Victim v : victims) {
      claimedVictims.add(v.uid());
      if (engine.requestPreemption(v, e) != null) {
        names.add(v.uid());
      }
    }
    if (names.isEmpty()) {
      return explain(e);
    }
    engine.reserveForPreemptor(e.queue, e.assignment);
    e.bucket.explain(
        Explanation.of(
            PendingReason.WaitingForPreemptedWorkloads,
            "waiting for "
                + names.size()
                + " preempted workload(s) to release quota: "
                + String.join(", ", names)));
    touched.add(e.bucket);
    return null;
  }

  private static Explanation explain(Entry e) {
    Explanation why = e.assignment.explanation();
    if (e.assignment.mode() == FlavorMode.Preempt) {
      why =
          Explanation.withSuffix(
              PendingReason.WaitingForQuota,
              why,
              "; preemption could make room but found no victims");
    }
    return why;
  }

  private void requeue(Entry e, PriorityQueue<Entry> entries, Explanation why) {
    touched.add(e.bucket);
    if (e.queue.spec.queueingStrategy() == QueueingStrategy.StrictFIFO) {
      e.bucket.explain(why);
      block(e.queue, e.bucket);
      return;
    }
    e.queue.queue.park(e.bucket, why);
    engine.registerWake(e.queue);
    Entry following = nominate(e.queue);
    if (following != null) {
      entries.add(following);
    }
  }

  /** The entries not decided yet wait, their queues kept dirty for the next cycle. */
  private void holdForPodsReady(ClusterQueueState admitting, PriorityQueue<Entry> entries) {
    engine.markDirty(admitting);
    for (Entry rest : entries) {
      engine.markDirty(rest.queue);
    }
    entries.clear();
  }

  private void block(ClusterQueueState cq, Bucket bucket) {
    cq.blocked = true;
    engine.registerWake(cq);
  }
}
