package dev.berth.engine;

import dev.berth.engine.flavor.Assignment;
import dev.berth.engine.flavor.FlavorAssigner;
import dev.berth.engine.flavor.FlavorMode;
import dev.berth.engine.model.Explanation;
import dev.berth.engine.model.PendingReason;
import dev.berth.engine.model.QueueingStrategy;
import dev.berth.engine.model.Workload;
import dev.berth.engine.queue.Bucket;
import dev.berth.engine.queue.PendingWorkload;
import dev.berth.engine.quota.QuotaTree;
import dev.berth.engine.topology.TopologyState;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * One admission cycle, in the numbered steps of Kueue's scheduler, except that a queue's next
 * workload is nominated as soon as its head is decided, so everything that fits is admitted in one
 * pass in the same global order:
 *
 * <ol>
 *   <li>heads: the head of every ClusterQueue that had an event since it was last settled ({@link
 *       PendingQueues});
 *   <li>snapshot: the quota store's tree; nothing else mutates it during a cycle (single thread);
 *   <li>nominate: flavor assignment of each head;
 *   <li>order: the {@link EntryOrdering};
 *   <li>admit, in that order, what still fits (re-assigned if quota changed since nomination) once
 *       its topology-aware podSets are placed on their flavors' nodes ({@link TopologyState}), or,
 *       in Preempt mode, ask the {@link PreemptionPlanner} for victims and request their evictions;
 *   <li>requeue: StrictFIFO blocks the queue, BestEffortFIFO parks the head's bucket; both wait for
 *       an event in their cohort tree.
 * </ol>
 *
 * <p>The cycle is one {@link CycleTransaction}: if any step throws, every store is put back as it
 * was and the exception propagates. Its {@link CycleResult} is a plain value, pending reasons
 * included.
 */
final class AdmissionCycle {
  private final QuotaStore quota;
  private final PendingQueues pending;
  private final TopologyState topology;
  private final EvictionExpectations expectations;
  private final LocalQueueUsage usage;

  /** Where the result's pending reasons come from; null when nobody reads them (the replay). */
  private final StatusView status;

  private final FlavorAssigner assigner;
  private final Comparator<Entry> ordering;
  private final boolean tournament;
  private final PreemptionPlanner planner;

  private final List<Admission> admissions = new ArrayList<>();
  private final Set<Bucket> touched = new LinkedHashSet<>();
  private final Set<String> claimedVictims = new HashSet<>();
  private final Set<String> admittedThisCycle = new HashSet<>();

  /** Entries that may run only on idle capacity: decided once every other entry is. */
  private final List<Entry> idleCapacityOnly = new ArrayList<>();

  /** Cohort trees (by tree index) in which a workload within its budget was left waiting. */
  private final Set<Integer> treesWithWaiting = new HashSet<>();

  private CycleTransaction tx;
  private int evaluations;

  /**
   * When a preemptor could first take a workload now held by its minimum runtime, or a queue's
   * borrowing pause ends; or MAX.
   */
  private long protectionEndsAt = Long.MAX_VALUE;

  AdmissionCycle(
      QuotaStore quota,
      PendingQueues pending,
      TopologyState topology,
      EvictionExpectations expectations,
      LocalQueueUsage usage,
      StatusView status,
      EntryOrdering ordering,
      PreemptionPlanner planner) {
    this.quota = quota;
    this.pending = pending;
    this.topology = topology;
    this.expectations = expectations;
    this.usage = usage;
    this.status = status;
    // A preemptor whose victims are all gone goes first: the quota they freed is its own.
    this.ordering =
        (a, b) -> a.reserved != b.reserved ? (a.reserved ? -1 : 1) : ordering.compare(a, b);
    // Fair sharing orders a cohort tree level by level; without a cohort tree the tournament and
    // the plain order agree.
    this.tournament = ordering instanceof FairSharingOrdering;
    this.planner = planner;
    this.assigner = new FlavorAssigner(planner instanceof FairSharingPreemption);
  }

  CycleResult run(long now) {
    // 2. snapshot: the tree must be current before anything reads it.
    quota.ensureTree();
    pending.unparkLookAgain();
    if (!pending.hasDirty() || quota.podsReady().blocker().isPresent()) {
      // Nothing happened, or blocked: the queues stay dirty and are looked at once the blocker is
      // ready or gone.
      return result();
    }
    tx = new CycleTransaction(quota, pending, topology, expectations);
    try {
      EntryLine entries =
          tournament
              ? new FairSharingTournament(quota.flavorResources(), ordering)
              : new OrderedLine(ordering);
      nominateHeads(entries);
      admitInOrder(entries, now);
      return result();
    } catch (RuntimeException | Error e) {
      tx.abort();
      throw e;
    }
  }

  /** Steps 1 and 3: the head of every ClusterQueue with an event, with its flavor assignment. */
  private void nominateHeads(EntryLine entries) {
    for (ClusterQueueState cq : pending.takeDirty()) {
      if (!cq.admissible()) {
        continue;
      }
      cq.blocked = false;
      Entry e = nominate(cq);
      if (e != null) {
        entries.add(e);
      }
    }
  }

  /**
   * Steps 4 to 6, one entry at a time in order; a decided queue's next head joins the line. Entries
   * that may run only on idle capacity come after all the others ({@link #next}).
   */
  private void admitInOrder(EntryLine entries, long now) {
    Entry e;
    while ((e = next(entries)) != null) {
      if (e.version != e.queue.node.version() && !stillFits(e)) {
        // Quota changed since nomination: re-assign, and go back in line (first again unless it
        // now ranks later).
        e.assignment = assign(e.queue, e.bucket);
        e.version = e.queue.node.version();
        entries.add(e);
        continue;
      }
      if (e.reserved) {
        // Its reservation is spent: admitted now, or it starts over like any other entry.
        e.reserved = false;
        quota.cancelPreemption(e.queue);
      }
      Explanation paused = borrowingPaused(e, now);
      if (paused != null) {
        requeue(e, entries, paused);
        continue;
      }
      Explanation notIdle = idleCapacityRefusal(e);
      if (notIdle != null) {
        requeue(e, entries, notIdle);
        continue;
      }
      FlavorMode mode = e.assignment.mode();
      TopologyState.Result placed = mode == FlavorMode.Fit ? place(e) : null;
      if (placed != null && placed.refused() != null) {
        // Quota fits but the nodes do not: wait for capacity like any workload that does not fit.
        requeue(e, entries, placed.refused());
      } else if (mode == FlavorMode.Fit) {
        admit(e, now, placed.podSets());
        if (quota.podsReady().blocker().isPresent()) {
          // blockAdmission: the new admission's pods are not ready yet; the rest waits for them.
          holdForPodsReady(e.queue, entries);
          break;
        }
        Entry following = nominate(e.queue);
        if (following != null) {
          entries.add(following);
        }
      } else if (evictIdleCapacity(e, now)) {
        waiting(e);
        block(e.queue);
      } else if (mode == FlavorMode.Preempt) {
        Explanation notPreempting = preempt(e, now);
        if (notPreempting == null) {
          waiting(e);
          block(e.queue);
        } else {
          requeue(e, entries, notPreempting);
        }
      } else {
        requeue(e, entries, explain(e));
      }
    }
    for (Entry rest : idleCapacityOnly) {
      // Left when blockAdmission stopped the cycle: looked at again in the next one.
      pending.markDirty(rest.queue);
    }
  }

  /**
   * The next entry to decide: the line's, except that an entry that may run only on idle capacity
   * is put aside until the line is empty, so that it takes only what no workload within its budget
   * took or waits for in this cycle; then those, in the cycle's order.
   */
  private Entry next(EntryLine entries) {
    Entry e;
    while ((e = entries.poll()) != null) {
      if (e.bucket.localQueue().idleCapacityOnly() == null) {
        return e;
      }
      idleCapacityOnly.add(e);
    }
    if (idleCapacityOnly.isEmpty()) {
      return null;
    }
    Entry first = idleCapacityOnly.get(0);
    for (Entry other : idleCapacityOnly) {
      if (ordering.compare(other, first) < 0) {
        first = other;
      }
    }
    idleCapacityOnly.remove(first);
    return first;
  }

  /**
   * Why an entry whose budget is spent, and may run only on idle capacity, is not admitted now;
   * null when it may be (it fits as things are, and no workload within its budget was left waiting
   * in its cohort tree in this cycle), and for every entry within its budget. It never preempts.
   */
  private Explanation idleCapacityRefusal(Entry e) {
    String budget = e.bucket.localQueue().idleCapacityOnly();
    if (budget == null) {
      return null;
    }
    String why;
    if (e.assignment.mode() != FlavorMode.Fit) {
      Explanation quota = e.assignment.explanation();
      why = "no idle capacity fits it" + (quota == null ? "" : ": " + quota.message());
    } else if (e.queue.node != null && treesWithWaiting.contains(e.queue.node.treeIndex())) {
      why =
          "a workload within its budget in the cohort tree of ClusterQueue "
              + e.queue.name
              + " waits for quota";
    } else {
      return null;
    }
    return Explanation.of(
        PendingReason.BudgetExhausted,
        budget
            + "; it may run only on idle capacity (whenExhausted: RunOnIdleCapacity), and "
            + why);
  }

  /** A workload within its budget was not admitted: idle capacity in its tree is not idle. */
  private void waiting(Entry e) {
    if (e.bucket.localQueue().idleCapacityOnly() == null && e.queue.node != null) {
      treesWithWaiting.add(e.queue.node.treeIndex());
    }
  }

  /**
   * For an entry within its budget that does not fit as things are: if evicting workloads that run
   * on idle capacity, and no others, makes room, asks for the fewest of them ({@link VictimOrder})
   * and returns true. They go whatever the queue's preemption policy and their priority: they were
   * admitted on the understanding that they give way. False when there are none, or they would not
   * make room (the ClusterQueue's preemption policy then decides as usual, with them first).
   */
  private boolean evictIdleCapacity(Entry e, long now) {
    if (quota.onIdleCapacityCount() == 0
        || e.bucket.localQueue().idleCapacityOnly() != null
        || e.queue.node == null) {
      return false;
    }
    List<AdmittedWorkload> idle = new ArrayList<>();
    for (ClusterQueueState q : quota.treeQueues(e.queue)) {
      if (q.onIdleCapacity == 0) {
        continue;
      }
      for (AdmittedWorkload a : q.admitted.values()) {
        String uid = a.workload.uid();
        if (a.onIdleCapacity != null
            && !a.evictionRequested
            && !admittedThisCycle.contains(uid)
            && !claimedVictims.contains(uid)) {
          idle.add(a);
        }
      }
    }
    if (idle.isEmpty()) {
      return false;
    }
    PreemptionContext ctx = PreemptionContext.of(e, quota, admittedThisCycle, now);
    idle.sort(VictimOrder.of(e.queue.name, ctx));
    idle.forEach(a -> SimulatedRemoval.remove(ctx, a));
    Assignment freed = assign(e.queue, e.bucket);
    idle.forEach(a -> SimulatedRemoval.restore(ctx, a));
    if (freed.mode() != FlavorMode.Fit || (freed.borrows() && e.queue.borrowingPausedUntil > now)) {
      return false;
    }
    List<AdmittedWorkload> taken = new ArrayList<>();
    for (AdmittedWorkload a : idle) {
      SimulatedRemoval.remove(ctx, a);
      taken.add(a);
      if (fitsNow(e.queue, freed)) {
        break;
      }
    }
    SimulatedRemoval.giveBackUnneeded(
        ctx, taken, SimulatedRemoval.IndexedCheck.of(() -> fitsNow(e.queue, freed)));
    taken.forEach(a -> SimulatedRemoval.restore(ctx, a));
    List<PreemptionPlanner.Victim> victims = new ArrayList<>(taken.size());
    for (AdmittedWorkload a : taken) {
      victims.add(new PreemptionPlanner.Victim(a.workload.uid(), PreemptionReason.OnIdleCapacity));
    }
    Assignment before = e.assignment;
    e.assignment = freed;
    if (topologyRefusalAfterEvicting(e, victims) != null) {
      e.assignment = before;
      return false;
    }
    List<String> names = new ArrayList<>(victims.size());
    for (PreemptionPlanner.Victim v : victims) {
      claimedVictims.add(v.uid());
      if (requestEviction(v, e)) {
        names.add(v.uid());
      }
    }
    quota.reserveForPreemptor(e.queue, freed.frs(), freed.usage());
    e.bucket.explain(
        Explanation.of(
            PendingReason.WaitingForPreemptedWorkloads,
            "waiting for "
                + names.size()
                + " workload(s) running on idle capacity to release quota: "
                + String.join(", ", names)));
    touched.add(e.bucket);
    return true;
  }

  /** Whether the assignment's usage is available in the queue's tree as it is now. */
  private static boolean fitsNow(ClusterQueueState cq, Assignment a) {
    for (int i = 0; i < a.frs().length; i++) {
      if (a.usage()[i] > QuotaTree.available(cq.node, a.frs()[i])) {
        return false;
      }
    }
    return true;
  }

  /**
   * Why the entry may not evict {@code victims} more workloads now: its queue's preemptors already
   * evicted its limit's count within the window. It looks again once enough of those are older than
   * the window (the operator wakes a cycle then). Null when within the limit, or no limit.
   */
  private Explanation overPreemptionLimit(Entry e, int victims, long now) {
    dev.berth.engine.model.PreemptionLimit limit = e.queue.spec.preemptionLimit();
    if (limit == null) {
      return null;
    }
    java.util.ArrayDeque<Long> recent = e.queue.preemptedAt;
    while (!recent.isEmpty() && recent.peekFirst() <= now - limit.windowMillis()) {
      recent.removeFirst();
    }
    if (recent.size() + victims <= limit.count()) {
      return null;
    }
    String window = limit.windowMillis() / 1000 + "s";
    if (victims > limit.count()) {
      return Explanation.withSuffix(
          PendingReason.WaitingForQuota,
          e.assignment.explanation(),
          "; it would preempt "
              + victims
              + " workloads, more than ClusterQueue "
              + e.queue.name
              + " may in "
              + window
              + " (preemption.maxPreemptions.count "
              + limit.count()
              + ")");
    }
    // The oldest preemptions that must leave the window first: the last of them sets the time.
    long freeAt =
        recent.stream().skip(recent.size() + victims - limit.count() - 1L).findFirst().orElse(now)
            + limit.windowMillis();
    pending.lookAgainNextCycle(e.queue);
    protectionEndsAt = Math.min(protectionEndsAt, freeAt);
    return Explanation.withSuffix(
        PendingReason.WaitingForQuota,
        e.assignment.explanation(),
        "; ClusterQueue "
            + e.queue.name
            + " preempted "
            + recent.size()
            + " workload(s) in the last "
            + window
            + " (preemption.maxPreemptions "
            + limit.count()
            + " per "
            + window
            + "); it may preempt "
            + victims
            + " more in "
            + Math.max(1, (freeAt - now + 999) / 1000)
            + "s");
  }

  /**
   * Why an entry that would borrow waits while its queue's borrowing is paused after a reclaim, or
   * null. It is looked at again when the pause ends (the operator wakes a cycle then).
   */
  private Explanation borrowingPaused(Entry e, long now) {
    ClusterQueueState cq = e.queue;
    if (e.assignment.mode() == FlavorMode.NoFit
        || !e.assignment.borrows()
        || cq.borrowingPausedUntil <= now) {
      return null;
    }
    pending.lookAgainNextCycle(cq);
    protectionEndsAt = Math.min(protectionEndsAt, cq.borrowingPausedUntil);
    return Explanation.of(
        PendingReason.WaitingForQuota,
        "it would borrow, and ClusterQueue "
            + cq.name
            + " borrows nothing for "
            + Math.max(1, (cq.borrowingPausedUntil - now + 999) / 1000)
            + "s more: quota it borrowed was just reclaimed"
            + " (preemption.borrowBackoffAfterReclaimSeconds)");
  }

  private CycleResult result() {
    return new CycleResult(
        admissions,
        expectations.outstanding(),
        expectations.takeFresh(),
        status == null ? PendingReasons.NONE : status.reasonsOf(touched),
        evaluations,
        protectionEndsAt);
  }

  /**
   * Within a cycle quota only shrinks and a queue's own usage changes only when it admits (after
   * which its next entry is nominated afresh). So a Fit whose flavor-resources are all still
   * available is still the best choice, with the same borrowing: no need to re-assign.
   */
  private static boolean stillFits(Entry e) {
    return e.assignment.mode() == FlavorMode.Fit && fitsNow(e.queue, e.assignment);
  }

  // ---------------------------------------------------------------- 3. nominate

  private Entry nominate(ClusterQueueState cq) {
    if (cq.blocked) {
      return null;
    }
    PendingPreemption p = cq.preemption;
    if (p != null) {
      // A preemptor keeps its place, even if a newcomer now sorts before it.
      PendingWorkload pw = pending.pending(p.preemptorUid);
      if (pw != null && pw.bucket().state() == Bucket.State.ACTIVE) {
        if (!p.ready) {
          block(cq);
          return null;
        }
        Entry e = new Entry(cq, pw.bucket(), pw, assign(cq, pw.bucket()), cq.node.version());
        e.reserved = true;
        e.frs = quota.flavorResources();
        return e;
      }
      quota.cancelPreemption(cq);
    }
    Bucket head = cq.queue.headBucket();
    if (head == null) {
      return null;
    }
    Entry e = new Entry(cq, head, head.front(), assign(cq, head), cq.node.version());
    e.frs = quota.flavorResources();
    return e;
  }

  private Assignment assign(ClusterQueueState cq, Bucket bucket) {
    evaluations++;
    return assigner.assign(bucket.plan(cq.compiled), cq.node);
  }

  // ---------------------------------------------------------------- 5. admit

  /**
   * Places the topology-aware podSets of a Fit entry on their flavors' nodes. On success the
   * placements are held for the workload and {@link #admit} must follow.
   */
  private TopologyState.Result place(Entry e) {
    TopologyState.Result placed =
        topology.place(e.workloadUid(), e.bucket.podSets(), PodSetAssignment.of(e.assignment));
    if (placed.refused() != null) {
      pending.awaitTopology(e.queue);
    } else {
      tx.placed(e.workloadUid());
    }
    return placed;
  }

  /** Reserves quota for a Fit entry placed by {@link #place}: the workload is admitted. */
  private void admit(Entry e, long now, List<PodSetAssignment> podSets) {
    ClusterQueueState cq = e.queue;
    Assignment a = e.assignment;
    Workload w = pending.toWorkload(e.workload);
    pending.admitted(e.workload, cq);
    Admission admission =
        new Admission(w.uid(), w.namespace(), w.name(), cq.name, w.queueName(), podSets, now);
    AdmittedWorkload held =
        new AdmittedWorkload(w, cq.name, e.bucket.localQueue(), a.frs(), a.usage(), admission);
    held.onIdleCapacity = e.bucket.localQueue().idleCapacityOnly();
    quota.admit(held);
    tx.admitted(held);
    if (cq.queue.orderByUsage()) {
      usage.admitted(held, tx);
    }
    admissions.add(admission);
    admittedThisCycle.add(admission.workloadUid());
  }

  /** Requests the victims' evictions and returns null, or returns why it does not preempt. */
  private Explanation preempt(Entry e, long now) {
    PreemptionContext ctx =
        new PreemptionContext(
            e,
            quota.queues(),
            quota.treeQueues(e.queue),
            quota.flavorResources(),
            admittedThisCycle,
            now);
    List<PreemptionPlanner.Victim> victims = planner.plan(ctx);
    if (victims.isEmpty() && ctx.protectedUntil() != Long.MAX_VALUE) {
      // Workloads it could take still run for their minimum runtime: look again once the first
      // may go (the operator wakes a cycle then, protectionEndsAt).
      pending.lookAgainNextCycle(e.queue);
      protectionEndsAt = Math.min(protectionEndsAt, ctx.protectedUntil());
      return Explanation.withSuffix(
          PendingReason.WaitingForQuota,
          e.assignment.explanation(),
          "; the workloads it could preempt run for their minimum runtime, the first for "
              + Math.max(1, (ctx.protectedUntil() - now + 999) / 1000)
              + "s more");
    }
    if (ctx.leftOutFreshAdmissions()) {
      // Workloads admitted in this cycle are no candidates; look again next cycle, when they are.
      // Victims found without them are not taken either: the planner would have chosen one of
      // them first where it ranks first (a lower priority), and the victims it chose instead
      // could include the very workload that evicted this one.
      pending.lookAgainNextCycle(e.queue);
      return victims.isEmpty()
          ? explain(e)
          : Explanation.withSuffix(
              PendingReason.WaitingForQuota,
              e.assignment.explanation(),
              "; preemption waits one cycle for the workloads admitted in this one");
    }
    if (victims.isEmpty()) {
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
    Explanation unplaceable = topologyRefusalAfterEvicting(e, victims);
    if (unplaceable != null) {
      return unplaceable;
    }
    Explanation overLimit = overPreemptionLimit(e, victims.size(), now);
    if (overLimit != null) {
      return overLimit;
    }
    List<String> names = new ArrayList<>(victims.size());
    for (PreemptionPlanner.Victim v : victims) {
      claimedVictims.add(v.uid());
      if (requestEviction(v, e)) {
        names.add(v.uid());
      }
    }
    if (names.isEmpty()) {
      return explain(e);
    }
    if (e.queue.spec.preemptionLimit() != null) {
      for (int i = 0; i < names.size(); i++) {
        e.queue.preemptedAt.addLast(now);
      }
    }
    quota.reserveForPreemptor(e.queue, e.assignment.frs(), e.assignment.usage());
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

  /**
   * Before a Preempt entry evicts anyone: why its topology-aware podSets could not be placed even
   * once these victims are gone, or null. Null also when a victim holds no placement: its pods are
   * bound pods the engine cannot tie to it, so what its eviction frees is unknown until it happens.
   */
  private Explanation topologyRefusalAfterEvicting(
      Entry e, List<PreemptionPlanner.Victim> victims) {
    List<String> uids = new ArrayList<>(victims.size());
    for (PreemptionPlanner.Victim v : victims) {
      if (!topology.holdsPlacements(v.uid())) {
        return null;
      }
      uids.add(v.uid());
    }
    Explanation why =
        topology.refusalWithout(uids, e.bucket.podSets(), PodSetAssignment.of(e.assignment));
    if (why != null) {
      pending.awaitTopology(e.queue);
    }
    return why;
  }

  /**
   * Asks for a victim's eviction on behalf of a preemptor, who from now on keeps its place until
   * the victim's quota is released. False when the victim is gone or already being evicted.
   */
  private boolean requestEviction(PreemptionPlanner.Victim victim, Entry preemptor) {
    AdmittedWorkload a = quota.admitted(victim.uid());
    if (a == null || a.evictionRequested) {
      return false;
    }
    a.evictionRequested = true;
    tx.evictionMarked(a);
    quota.awaitVictim(preemptor.queue, preemptor.workloadUid(), victim.uid());
    Eviction eviction =
        new Eviction(
            victim.uid(),
            a.clusterQueue,
            EvictionReason.Preempted,
            "preempted to admit "
                + preemptor.workload.name()
                + " in ClusterQueue "
                + preemptor.clusterQueue(),
            victim.reason(),
            preemptor.workloadUid());
    if (expectations.expect(eviction)) {
      tx.expectationAdded(eviction.workloadUid());
    }
    return true;
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

  // ---------------------------------------------------------------- 6. requeue

  private void requeue(Entry e, EntryLine entries, Explanation why) {
    touched.add(e.bucket);
    waiting(e);
    if (e.queue.spec.queueingStrategy() == QueueingStrategy.StrictFIFO) {
      e.bucket.explain(why);
      block(e.queue);
      return;
    }
    e.queue.queue.park(e.bucket, why);
    pending.registerWake(e.queue);
    Entry following = nominate(e.queue);
    if (following != null) {
      entries.add(following);
    }
  }

  /** The entries not decided yet wait, their queues kept dirty for the next cycle. */
  private void holdForPodsReady(ClusterQueueState admitting, EntryLine entries) {
    pending.markDirty(admitting);
    for (Entry rest : entries.drain()) {
      pending.markDirty(rest.queue);
    }
  }

  private void block(ClusterQueueState cq) {
    cq.blocked = true;
    pending.registerWake(cq);
  }
}
