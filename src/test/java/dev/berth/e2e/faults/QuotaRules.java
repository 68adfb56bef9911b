package dev.berth.e2e.faults;

import dev.berth.api.v1beta1.Condition;
import dev.berth.api.v1beta1.PodSetAssignment;
import dev.berth.api.v1beta1.Workload;
import dev.berth.engine.quota.Quantity;
import io.fabric8.kubernetes.api.model.OwnerReference;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The suite's quota rules over a set of Workloads, with no code of Berth's behind them: which
 * Workloads hold quota, and whether those holding it fit. Applied alike to the watcher's stream and
 * to what etcd held at a revision, so that a verdict is taken the same way on both.
 */
final class QuotaRules {
  private final Map<String, Long> limit;
  private final long cohortLimit;
  private final Map<String, String> clusterQueueOfLocalQueue;

  /**
   * @param limit per ClusterQueue, nominal + borrowingLimit in millis of the one resource
   * @param cohortLimit the sum of the cohort's nominal quotas
   */
  QuotaRules(
      Map<String, Long> limit, long cohortLimit, Map<String, String> clusterQueueOfLocalQueue) {
    this.limit = Map.copyOf(limit);
    this.cohortLimit = cohortLimit;
    this.clusterQueueOfLocalQueue = Map.copyOf(clusterQueueOfLocalQueue);
  }

  /** Holding quota: an admission, QuotaReserved true, and not Finished. */
  static boolean holdsQuota(Workload wl) {
    return wl.getStatus() != null
        && wl.getStatus().admission != null
        && condition(wl, "QuotaReserved")
        && !condition(wl, "Finished");
  }

  static boolean condition(Workload wl, String type) {
    List<Condition> conditions = wl.getStatus() == null ? null : wl.getStatus().conditions;
    return conditions != null
        && conditions.stream().anyMatch(c -> type.equals(c.type) && c.isTrue());
  }

  /** The UID of the Job owning it, or null. */
  static String job(Workload wl) {
    List<OwnerReference> owners = wl.getMetadata().getOwnerReferences();
    return owners == null
        ? null
        : owners.stream()
            .filter(o -> "Job".equals(o.getKind()))
            .map(OwnerReference::getUid)
            .findFirst()
            .orElse(null);
  }

  /** What it holds, in millis of the one resource. */
  static long usage(Workload wl) {
    long usage = 0;
    for (PodSetAssignment ps : wl.getStatus().admission.podSetAssignments) {
      for (var used : ps.resourceUsage.entrySet()) {
        usage += Quantity.parse(used.getKey(), used.getValue().toString());
      }
    }
    return usage;
  }

  /** Its admission as text: ClusterQueue, podSets, flavors and usage (equal iff the same). */
  static String admission(Workload wl) {
    StringBuilder admission = new StringBuilder(wl.getStatus().admission.clusterQueue);
    for (PodSetAssignment ps : wl.getStatus().admission.podSetAssignments) {
      admission.append(' ').append(ps.name).append(ps.flavors).append(ps.resourceUsage);
    }
    return admission.toString();
  }

  /** The cohort's usage by the Workloads of {@code workloads} that hold quota. */
  static long cohortUsage(Collection<Workload> workloads) {
    return workloads.stream().filter(QuotaRules::holdsQuota).mapToLong(QuotaRules::usage).sum();
  }

  /**
   * What breaks the rules among the Workloads of {@code workloads} that hold quota: a ClusterQueue
   * over nominal + borrowingLimit, the cohort over its nominal quotas, a Job with two Workloads
   * holding quota, a Workload admitted to another ClusterQueue than its LocalQueue's.
   */
  List<String> violations(Collection<Workload> workloads) {
    Map<String, Long> perQueue = new TreeMap<>();
    Map<String, List<String>> perJob = new TreeMap<>();
    List<String> found = new ArrayList<>();
    long cohort = 0;
    for (Workload wl : workloads) {
      if (!holdsQuota(wl)) {
        continue;
      }
      String queue = wl.getStatus().admission.clusterQueue;
      long usage = usage(wl);
      perQueue.merge(queue, usage, Long::sum);
      cohort += usage;
      String job = job(wl);
      perJob
          .computeIfAbsent(job == null ? wl.getMetadata().getUid() : job, j -> new ArrayList<>())
          .add(wl.getMetadata().getName());
      String expected = clusterQueueOfLocalQueue.get(wl.getSpec().queueName);
      if (!queue.equals(expected)) {
        found.add(
            wl.getMetadata().getName()
                + " of LocalQueue "
                + wl.getSpec().queueName
                + " admitted to "
                + queue);
      }
    }
    perQueue.forEach(
        (queue, used) -> {
          if (used > limit.getOrDefault(queue, 0L)) {
            found.add(
                "ClusterQueue "
                    + queue
                    + " holds "
                    + used
                    + "m, over nominal + borrowingLimit "
                    + limit.get(queue)
                    + "m");
          }
        });
    if (cohort > cohortLimit) {
      found.add("the cohort holds " + cohort + "m, over its " + cohortLimit + "m");
    }
    perJob.forEach(
        (job, names) -> {
          if (names.size() > 1) {
            found.add("Job " + job + " has " + names.size() + " Workloads holding quota " + names);
          }
        });
    return found;
  }
}
