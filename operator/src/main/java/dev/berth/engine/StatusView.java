package dev.berth.engine;

import dev.berth.engine.model.Explanation;
import dev.berth.engine.model.FlavorQuotas;
import dev.berth.engine.model.PendingReason;
import dev.berth.engine.model.PodSet;
import dev.berth.engine.model.QueueingStrategy;
import dev.berth.engine.model.ResourceGroup;
import dev.berth.engine.model.ResourceQuota;
import dev.berth.engine.queue.Bucket;
import dev.berth.engine.queue.LocalQueueState;
import dev.berth.engine.queue.PendingWorkload;
import dev.berth.engine.quota.QuotaNode;
import dev.berth.engine.quota.QuotaTree;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * What the operator turns into status and metrics: why each workload waits and where it stands,
 * counts per ClusterQueue and LocalQueue, usage and borrowing per flavor-resource, and why a queue
 * or cohort is inactive. Reads the pending queues and the quota store through their queries, never
 * changing what they hold; same single-thread contract as the engine.
 */
public final class StatusView {
  private final PendingQueues pending;
  private final QuotaStore quota;
  private final Function<String, StartEstimate> estimates;

  StatusView(PendingQueues pending, QuotaStore quota, Function<String, StartEstimate> estimates) {
    this.pending = pending;
    this.quota = quota;
    this.estimates = estimates;
  }

  /** Why a pending workload waits, or null if the engine does not know it as pending. */
  public PendingStatus pendingStatus(String uid) {
    PendingWorkload pw = pending.pending(uid);
    if (pw == null) {
      LocalQueueState lq = pending.unroutedQueue(uid);
      return lq == null
          ? null
          : new PendingStatus(
              uid,
              null,
              Explanation.lazy(
                  PendingReason.Inadmissible, () -> "LocalQueue " + lq.key() + " doesn't exist"));
    }
    quota.ensureTree();
    ClusterQueueState cq = quota.find(pw.bucket().queue().clusterQueue());
    return new PendingStatus(uid, cq.name, why(cq, pw.bucket(), isHead(cq, pw)));
  }

  /**
   * The reasons of every workload of these buckets, as a cycle leaves them. All but a queue's head
   * share their bucket's reason, so it is worked out once per bucket.
   */
  PendingReasons reasonsOf(Collection<Bucket> buckets) {
    if (buckets.isEmpty()) {
      return PendingReasons.NONE;
    }
    quota.ensureTree();
    List<PendingReasons.Group> groups = new ArrayList<>(buckets.size());
    for (Bucket b : buckets) {
      ClusterQueueState cq = quota.find(b.queue().clusterQueue());
      String[] uids = new String[b.size()];
      // Without a waiting preemptor only the front of the head bucket (its first member) is head.
      String preemptor = cq.preemption == null ? null : cq.preemption.preemptorUid;
      int head = preemptor == null && cq.queue.headBucket() == b ? 0 : -1;
      int i = 0;
      for (PendingWorkload w : b.members()) {
        if (preemptor != null && preemptor.equals(w.uid())) {
          head = i;
        }
        uids[i++] = w.uid();
      }
      if (uids.length == 0) {
        continue;
      }
      groups.add(
          new PendingReasons.Group(
              cq.name,
              uids,
              head,
              head < 0 ? null : why(cq, b, true),
              uids.length > (head < 0 ? 0 : 1) ? why(cq, b, false) : null));
    }
    return new PendingReasons(groups);
  }

  /** Whether the workload is the one its queue looks at (a waiting preemptor keeps its place). */
  private static boolean isHead(ClusterQueueState cq, PendingWorkload pw) {
    if (cq.preemption != null) {
      return cq.preemption.preemptorUid.equals(pw.uid());
    }
    Bucket head = cq.queue.headBucket();
    return head == pw.bucket() && head.front() == pw;
  }

  private static final Explanation NEXT_CYCLE =
      Explanation.of(PendingReason.WaitingForQuota, "waiting for the next admission cycle");

  private Explanation why(ClusterQueueState cq, Bucket b, boolean isHead) {
    Explanation why = cq.inadmissible();
    if (why == null && b.state() != Bucket.State.ACTIVE) {
      why = b.explanation();
    }
    if (why == null) {
      Bucket head = cq.queue.headBucket();
      if (cq.blocked && isHead) {
        why = b.explanation();
      } else if (cq.blocked && head != null) {
        PendingWorkload preemptor =
            cq.preemption == null ? null : pending.pending(cq.preemption.preemptorUid);
        String headName = preemptor != null ? preemptor.name() : head.front().name();
        String name = cq.name;
        // Lazy: a sweep reads this for every workload behind the head, and writes a handful.
        why =
            cq.spec.queueingStrategy() == QueueingStrategy.StrictFIFO
                ? Explanation.lazy(
                    PendingReason.WaitingForQuota,
                    () ->
                        "waiting behind "
                            + headName
                            + ", the head of StrictFIFO ClusterQueue "
                            + name)
                : Explanation.lazy(
                    PendingReason.WaitingForQuota,
                    () -> "waiting behind " + headName + ", which waits for preempted workloads");
      }
    }
    if (why == null) {
      why =
          quota
              .podsReady()
              .blocker()
              .map(
                  blocker -> {
                    String name = quota.admitted(blocker).admission.name();
                    return Explanation.lazy(
                        PendingReason.WaitingForPodsReady,
                        () ->
                            "waiting for the pods of admitted workload "
                                + name
                                + " to be ready (waitForPodsReady blockAdmission)");
                  })
              .orElse(null);
    }
    if (why == null) {
      why = NEXT_CYCLE;
    }
    return why;
  }

  /**
   * Why each pending workload waits, those without a LocalQueue included. All but a queue's head
   * share their bucket's explanation, worked out once per bucket: the operator's sweep reads this
   * every second, tens of thousands of workloads on a large cluster.
   */
  public List<PendingStatus> pendingStatuses() {
    List<PendingStatus> out = new ArrayList<>(pending.size());
    quota.ensureTree();
    Map<Bucket, Explanation> shared = new HashMap<>();
    for (PendingWorkload pw : pending.pending()) {
      Bucket b = pw.bucket();
      ClusterQueueState cq = quota.find(b.queue().clusterQueue());
      Explanation why =
          isHead(cq, pw) ? why(cq, b, true) : shared.computeIfAbsent(b, k -> why(cq, k, false));
      out.add(new PendingStatus(pw.uid(), cq.name, why));
    }
    for (String uid : pending.unroutedUids()) {
      out.add(pendingStatus(uid));
    }
    return out;
  }

  /**
   * The pending workloads of a ClusterQueue in admission order, with their positions, requests and
   * reasons (the visibility API). Empty for an unknown ClusterQueue.
   */
  public List<PendingEntry> pendingWorkloads(String clusterQueue) {
    ClusterQueueState cq = quota.find(clusterQueue);
    List<PendingEntry> out = new ArrayList<>();
    if (cq == null) {
      return out;
    }
    Map<LocalQueueState, Integer> perLocalQueue = new HashMap<>();
    for (PendingWorkload w : cq.queue.inOrder()) {
      Bucket b = w.bucket();
      LocalQueueState lq = b.localQueue();
      int local = perLocalQueue.merge(lq, 1, Integer::sum) - 1;
      Map<String, Long> requests = new TreeMap<>();
      for (PodSet ps : b.podSets()) {
        ps.total(ps.count()).forEach((r, v) -> requests.merge(r, v, Long::sum));
      }
      PendingStatus why = pendingStatus(w.uid());
      StartEstimate est = estimates.apply(w.uid());
      out.add(
          new PendingEntry(
              w.uid(),
              lq.namespace(),
              w.name(),
              lq.name(),
              cq.name,
              out.size(),
              local,
              b.priority(),
              requests,
              why.reason().name(),
              why.summary(),
              est == null ? null : est.startAt(),
              est == null ? null : est.basis()));
    }
    return out;
  }

  /** Position of each pending workload of a ClusterQueue (0 = head), in queue order. */
  public Map<String, Integer> queuePositions(String clusterQueue) {
    ClusterQueueState cq = quota.find(clusterQueue);
    Map<String, Integer> out = new LinkedHashMap<>();
    if (cq != null) {
      for (PendingWorkload w : cq.queue.inOrder()) {
        out.put(w.uid(), out.size());
      }
    }
    return out;
  }

  /** Position of each pending workload of a LocalQueue among that LocalQueue's workloads. */
  public Map<String, Integer> localQueuePositions(String namespace, String name) {
    LocalQueueState lq = pending.findLocalQueue(namespace + "/" + name);
    Map<String, Integer> out = new LinkedHashMap<>();
    if (lq == null || lq.spec() == null) {
      return out;
    }
    ClusterQueueState cq = quota.find(lq.spec().clusterQueue());
    for (PendingWorkload w : cq.queue.inOrder()) {
      if (w.bucket().localQueue() == lq) {
        out.put(w.uid(), out.size());
      }
    }
    return out;
  }

  public QueueCounts clusterQueueCounts(String name) {
    ClusterQueueState cq = quota.find(name);
    if (cq == null) {
      return new QueueCounts(0, 0, 0, 0);
    }
    quota.ensureTree();
    int active = cq.queue.activeCount();
    int inadmissible = cq.queue.inadmissibleCount();
    if (!cq.admissible()) {
      inadmissible += active;
      active = 0;
    }
    return new QueueCounts(active, inadmissible, cq.admitted.size(), cq.admitted.size());
  }

  /**
   * A LocalQueue's recent usage as admission fair sharing sees it, or empty when never named or
   * never sampled nor restored.
   */
  public java.util.Optional<LocalQueueUsageView> localQueueUsage(String namespace, String name) {
    LocalQueueState lq = pending.findLocalQueue(namespace + "/" + name);
    if (lq == null || lq.consumedAt() == Long.MIN_VALUE && lq.penalty().isEmpty()) {
      return java.util.Optional.empty();
    }
    return java.util.Optional.of(
        new LocalQueueUsageView(
            lq.consumed(),
            lq.consumedAt() == Long.MIN_VALUE ? null : lq.consumedAt(),
            lq.penalty(),
            lq.score()));
  }

  /** Whether the ClusterQueue orders its LocalQueues by recent usage (admission fair sharing). */
  public boolean ordersByUsage(String clusterQueue) {
    ClusterQueueState cq = quota.find(clusterQueue);
    return cq != null && cq.spec != null && cq.spec.usageBasedAdmissionFairSharing();
  }

  public QueueCounts localQueueCounts(String namespace, String name) {
    LocalQueueState lq = pending.findLocalQueue(namespace + "/" + name);
    if (lq == null) {
      return new QueueCounts(0, 0, 0, 0);
    }
    quota.ensureTree();
    int active = lq.pendingActive();
    int inadmissible = lq.pendingInadmissible();
    ClusterQueueState cq = lq.spec() == null ? null : quota.find(lq.spec().clusterQueue());
    if (cq == null || !cq.admissible()) {
      inadmissible += active;
      active = 0;
    }
    return new QueueCounts(active, inadmissible, lq.admitted(), lq.admitted());
  }

  /** Usage of every flavor-resource of a ClusterQueue, in spec order (flavorsReservation). */
  public List<FlavorUsage> usage(String clusterQueue) {
    ClusterQueueState cq = quota.find(clusterQueue);
    List<FlavorUsage> out = new ArrayList<>();
    if (cq == null || cq.spec == null) {
      return out;
    }
    for (ResourceGroup g : cq.spec.resourceGroups()) {
      for (FlavorQuotas f : g.flavors()) {
        for (ResourceQuota q : f.resources()) {
          int fr = quota.flavorResources().find(f.name(), q.name());
          long total = fr < 0 ? 0 : cq.usage(fr);
          out.add(
              new FlavorUsage(
                  f.name(),
                  q.name(),
                  q.nominalQuota(),
                  total,
                  Math.max(0, total - q.nominalQuota())));
        }
      }
    }
    return out;
  }

  /** Usage of one flavor-resource by a ClusterQueue, in canonical units. */
  public long usage(String clusterQueue, String flavor, String resource) {
    ClusterQueueState cq = quota.find(clusterQueue);
    int fr = quota.flavorResources().find(flavor, resource);
    return cq == null || fr < 0 ? 0 : cq.usage(fr);
  }

  /**
   * The ClusterQueue's weighted dominant-resource share in its cohort, in thousandths (status
   * fairSharing.weightedShare); 0 outside a cohort or while not borrowing, Long.MAX_VALUE for
   * weight 0 while borrowing.
   */
  public long weightedShare(String clusterQueue) {
    ClusterQueueState cq = quota.find(clusterQueue);
    if (cq == null) {
      return 0;
    }
    quota.ensureTree();
    return DominantResourceShare.of(cq, quota.flavorResources(), null, null);
  }

  /**
   * A cohort's dominant-resource share in its parent cohort, in thousandths (status
   * fairSharing.weightedShare of a Cohort): what it draws beyond its own subtree's pool over what
   * its parent could lend it, divided by its weight. 0 for a root cohort, an unknown or an inactive
   * one.
   */
  public long cohortWeightedShare(String cohort) {
    quota.ensureTree();
    QuotaNode n = quota.tree().cohort(cohort);
    return n == null || !n.active()
        ? 0
        : DominantResourceShare.ofCohort(n, quota.flavorResources());
  }

  /** Why a ClusterQueue is not active (its Active condition), or null when it is. */
  public String clusterQueueInactiveMessage(String name) {
    ClusterQueueState cq = quota.find(name);
    if (cq == null) {
      return "ClusterQueue " + name + " doesn't exist";
    }
    quota.ensureTree();
    Explanation why = cq.inadmissible();
    return why == null ? null : why.message();
  }

  /** Why a cohort is inactive (a cycle), or null. */
  public String cohortInactiveMessage(String name) {
    quota.ensureTree();
    QuotaNode n = quota.tree().cohort(name);
    return n == null ? null : n.inactiveMessage();
  }

  /** Quota of a cohort's subtree for one flavor-resource (nominal plus what children lend). */
  public long cohortSubtreeQuota(String cohort, String flavor, String resource) {
    quota.ensureTree();
    QuotaNode n = quota.tree().cohort(cohort);
    int fr = quota.flavorResources().find(flavor, resource);
    return n == null || fr < 0 ? 0 : n.subtreeQuota(fr);
  }

  /** What a ClusterQueue could take of a flavor-resource right now. */
  public long available(String clusterQueue, String flavor, String resource) {
    quota.ensureTree();
    ClusterQueueState cq = quota.find(clusterQueue);
    int fr = quota.flavorResources().find(flavor, resource);
    return cq == null || cq.node == null || fr < 0 ? 0 : QuotaTree.available(cq.node, fr);
  }

  /**
   * The most a ClusterQueue could take of a flavor-resource if nothing else in its cohort tree were
   * in use: its nominal quota plus all it may borrow under every limit on the way up.
   */
  public long potentialAvailable(String clusterQueue, String flavor, String resource) {
    quota.ensureTree();
    ClusterQueueState cq = quota.find(clusterQueue);
    int fr = quota.flavorResources().find(flavor, resource);
    return cq == null || cq.node == null || fr < 0 ? 0 : QuotaTree.potentialAvailable(cq.node, fr);
  }
}
