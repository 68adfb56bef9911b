package dev.berth.engine.queue;

import dev.berth.engine.flavor.AssignmentPlan;
import dev.berth.engine.flavor.CompiledQueue;
import dev.berth.engine.model.Explanation;
import dev.berth.engine.model.PodSet;
import java.util.List;
import java.util.TreeSet;

/**
 * The pending workloads of one ClusterQueue that share LocalQueue, priority and podSets, in FIFO
 * order. On a given quota state they all get the same answer, so one evaluation of the front
 * decides for the whole bucket: a parked bucket costs nothing until an event, however many
 * workloads it holds.
 */
public final class Bucket {
  /** Where the bucket is. */
  public enum State {
    /** Its front competes for admission. */
    ACTIVE,
    /** BestEffortFIFO: the front did not fit; waits for an event that could change that. */
    PARKED,
    /** Its LocalQueue is stopped or its namespace does not match the ClusterQueue. */
    HELD
  }

  final PendingQueue queue;
  final LocalQueueState localQueue;
  final int priority;
  final List<PodSet> podSets;
  final TreeSet<PendingWorkload> members = new TreeSet<>(PendingWorkload::fifo);

  /** members.first(), cached: the sorted set of buckets compares fronts on every change. */
  PendingWorkload front;

  State state = State.ACTIVE;
  boolean inActiveSet;
  boolean dead;
  Explanation explanation;
  private AssignmentPlan plan;

  Bucket(PendingQueue queue, LocalQueueState localQueue, int priority, List<PodSet> podSets) {
    this.queue = queue;
    this.localQueue = localQueue;
    this.priority = priority;
    this.podSets = podSets;
  }

  public PendingWorkload front() {
    return front;
  }

  public int size() {
    return members.size();
  }

  public int priority() {
    return priority;
  }

  public List<PodSet> podSets() {
    return podSets;
  }

  public LocalQueueState localQueue() {
    return localQueue;
  }

  public PendingQueue queue() {
    return queue;
  }

  public State state() {
    return state;
  }

  /** The last verdict on this bucket's front, or null if never evaluated. */
  public Explanation explanation() {
    return explanation;
  }

  public void explain(Explanation explanation) {
    this.explanation = explanation;
  }

  public Iterable<PendingWorkload> members() {
    return members;
  }

  /** The assignment plan for the ClusterQueue's current compiled spec, built once per spec. */
  public AssignmentPlan plan(CompiledQueue compiled) {
    if (plan == null || plan.queue() != compiled) {
      plan = AssignmentPlan.of(compiled, podSets);
    }
    return plan;
  }
}
