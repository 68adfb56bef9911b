package dev.berth.engine.queue;

import dev.berth.engine.model.Explanation;
import dev.berth.engine.model.PodSet;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * The pending workloads of one ClusterQueue, ordered by priority (high first), then queue
 * timestamp, then UID. Workloads are grouped into {@link Bucket}s of identical shape; the active
 * buckets are kept sorted by their front, so the head is the first active bucket's front. Parked
 * and held buckets are out of the sorted set until an event brings them back.
 *
 * <p>With admission fair sharing ({@link #orderByUsage}) the LocalQueue with the lowest score
 * ({@link DecayedUsage#score}) goes first and the order above breaks ties, as Kueue puts a
 * LocalQueue's usage before priority. A score changes only through {@link #rescore}, which takes
 * the LocalQueue's buckets out of the sorted set and puts them back around the change.
 */
public final class PendingQueue {
  private record Key(LocalQueueState localQueue, int priority, List<PodSet> podSets) {}

  private final String clusterQueue;
  private final Map<Key, Bucket> buckets = new HashMap<>();
  private final TreeSet<Bucket> active = new TreeSet<>(this::compareFronts);
  private final List<Bucket> parked = new ArrayList<>();
  private int activeCount;
  private int inadmissibleCount;
  private boolean orderByUsage;

  public PendingQueue(String clusterQueue) {
    this.clusterQueue = clusterQueue;
  }

  public String clusterQueue() {
    return clusterQueue;
  }

  public boolean orderByUsage() {
    return orderByUsage;
  }

  /** Turns ordering by LocalQueue usage on or off (the ClusterQueue's admissionScope). */
  public void orderByUsage(boolean on) {
    if (on == orderByUsage) {
      return;
    }
    List<Bucket> all = new ArrayList<>(active);
    all.forEach(this::detach);
    orderByUsage = on;
    all.forEach(this::attach);
  }

  /** Sets a LocalQueue's score, keeping its buckets (all in one ClusterQueue) in order. */
  public static void rescore(LocalQueueState lq, double score) {
    if (Double.compare(lq.score, score) == 0) {
      return;
    }
    reorder(lq, () -> lq.score = score);
  }

  /**
   * Makes a change to a LocalQueue that moves its buckets (all in one ClusterQueue) in the order:
   * they leave the sorted set before it and come back after.
   */
  private static void reorder(LocalQueueState lq, Runnable change) {
    List<Bucket> moved = new ArrayList<>();
    for (Bucket b : lq.buckets) {
      if (b.inActiveSet) {
        b.queue.detach(b);
        moved.add(b);
      }
    }
    change.run();
    for (Bucket b : moved) {
      b.queue.attach(b);
    }
  }

  /**
   * Marks a LocalQueue's workloads as allowed to run only on idle capacity (its spent budget's
   * message) or not (null), keeping its buckets (all in one ClusterQueue) in order: such workloads
   * go after every workload within its budget, so a ClusterQueue's head is within budget whenever
   * one competes.
   */
  public static void idleCapacityOnly(LocalQueueState lq, String why) {
    if (java.util.Objects.equals(lq.idleCapacityOnly, why)) {
      return;
    }
    reorder(lq, () -> lq.idleCapacityOnly = why);
  }

  /** Queue order of two pending workloads of this ClusterQueue. */
  public int compare(PendingWorkload a, PendingWorkload b) {
    boolean idleA = a.bucket.localQueue.idleCapacityOnly != null;
    if (idleA != (b.bucket.localQueue.idleCapacityOnly != null)) {
      return idleA ? 1 : -1;
    }
    if (orderByUsage) {
      int c = Double.compare(a.bucket.localQueue.score, b.bucket.localQueue.score);
      if (c != 0) {
        return c;
      }
    }
    return PendingWorkload.compare(a, b);
  }

  private int compareFronts(Bucket a, Bucket b) {
    return compare(a.front, b.front);
  }

  /** Adds a workload; it joins the bucket of its shape (parked or held buckets stay so). */
  public Bucket add(PendingWorkload w, LocalQueueState lq, int priority, List<PodSet> podSets) {
    Key key = new Key(lq, priority, podSets);
    Bucket b = buckets.get(key);
    if (b == null) {
      b = new Bucket(this, lq, priority, podSets);
      buckets.put(key, b);
      lq.buckets.add(b);
      if (lq.held != null) {
        b.state = Bucket.State.HELD;
        b.explanation = lq.held;
      }
    }
    detach(b);
    b.members.add(w);
    b.front = b.members.first();
    w.bucket = b;
    attach(b);
    count(b, 1);
    return b;
  }

  /** Removes a pending workload (admitted, deleted or changed). */
  public void remove(PendingWorkload w) {
    Bucket b = w.bucket;
    detach(b);
    b.members.remove(w);
    b.front = b.members.isEmpty() ? null : b.members.first();
    count(b, -1);
    if (b.members.isEmpty()) {
      b.dead = true;
      buckets.remove(new Key(b.localQueue, b.priority, b.podSets));
      b.localQueue.buckets.remove(b);
    } else {
      attach(b);
    }
  }

  /** The first active bucket, whose front is the head of the queue; null when none. */
  public Bucket headBucket() {
    return active.isEmpty() ? null : active.first();
  }

  /** BestEffortFIFO: the front did not fit; the bucket waits for an event. */
  public void park(Bucket b, Explanation why) {
    b.explanation = why;
    if (b.state != Bucket.State.ACTIVE) {
      return;
    }
    detach(b);
    count(b, -b.size());
    b.state = Bucket.State.PARKED;
    count(b, b.size());
    parked.add(b);
  }

  /** Returns every parked bucket to competition; true if any came back. */
  public boolean unparkAll() {
    boolean any = false;
    for (Bucket b : parked) {
      if (b.dead || b.state != Bucket.State.PARKED) {
        continue;
      }
      count(b, -b.size());
      b.state = Bucket.State.ACTIVE;
      count(b, b.size());
      attach(b);
      any = true;
    }
    parked.clear();
    return any;
  }

  public boolean hasParked() {
    return !parked.isEmpty();
  }

  /**
   * Holds (or releases, with null) every bucket of a LocalQueue. True if a bucket became active.
   */
  public static boolean hold(LocalQueueState lq, Explanation why) {
    lq.held = why;
    boolean released = false;
    for (Bucket b : lq.buckets) {
      PendingQueue q = b.queue;
      if (why != null) {
        b.explanation = why;
        if (b.state != Bucket.State.HELD) {
          q.detach(b);
          q.count(b, -b.size());
          b.state = Bucket.State.HELD;
          q.count(b, b.size());
        }
      } else if (b.state == Bucket.State.HELD) {
        q.count(b, -b.size());
        b.state = Bucket.State.ACTIVE;
        b.explanation = null;
        q.count(b, b.size());
        q.attach(b);
        released = true;
      }
    }
    return released;
  }

  /** All pending workloads in queue order (for positions and visibility); O(n log n). */
  public List<PendingWorkload> inOrder() {
    List<PendingWorkload> all = new ArrayList<>(activeCount + inadmissibleCount);
    for (Bucket b : buckets.values()) {
      all.addAll(b.members);
    }
    all.sort(this::compare);
    return all;
  }

  public int activeCount() {
    return activeCount;
  }

  public int inadmissibleCount() {
    return inadmissibleCount;
  }

  public int size() {
    return activeCount + inadmissibleCount;
  }

  public Iterable<Bucket> buckets() {
    return buckets.values();
  }

  private void detach(Bucket b) {
    if (b.inActiveSet) {
      // The head bucket is the one a cycle admits from or parks: take it without a search.
      if (active.first() == b) {
        active.pollFirst();
      } else {
        active.remove(b);
      }
      b.inActiveSet = false;
    }
  }

  private void attach(Bucket b) {
    if (b.state == Bucket.State.ACTIVE && !b.members.isEmpty() && !b.inActiveSet) {
      active.add(b);
      b.inActiveSet = true;
    }
  }

  private void count(Bucket b, int delta) {
    if (b.state == Bucket.State.ACTIVE) {
      activeCount += delta;
      b.localQueue.pendingActive += delta;
    } else {
      inadmissibleCount += delta;
      b.localQueue.pendingInadmissible += delta;
    }
  }
}
