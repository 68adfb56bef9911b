package dev.berth.e2e.faults;

import dev.berth.api.v1beta1.Condition;
import dev.berth.api.v1beta1.PodSetAssignment;
import dev.berth.api.v1beta1.Workload;
import dev.berth.engine.quota.Quantity;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KubernetesResourceList;
import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.fabric8.kubernetes.client.dsl.MixedOperation;
import io.fabric8.kubernetes.client.dsl.Resource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BiConsumer;
import java.util.function.LongFunction;

/**
 * The test's own view of admission, from its own client straight to the API server (never through
 * the fault proxy), independent of Berth's code: at every Workload event it sums the usage of the
 * Workloads holding quota (status.admission, QuotaReserved true, not Finished) and checks each
 * ClusterQueue against nominal + borrowingLimit and the cohort against the sum of the nominal
 * quotas; that no Job has two Workloads holding quota, that no Workload's admission changes while
 * it holds quota (a second admission without a release), and that a Workload is admitted to its
 * LocalQueue's ClusterQueue. A Job seen running (spec.suspend=false, not finished) must have a
 * Workload holding quota at that resourceVersion; since Jobs and Workloads come on two streams,
 * that is checked once the Workload stream has had {@link #SETTLE_NANOS} to catch up. A watch that
 * is closed lists again, and what changed in between is not in the stream's history: so a Job the
 * history finds unadmitted is read again from etcd itself, the Workloads as they were at the Job's
 * resourceVersion ({@code resourceVersionMatch=Exact}), and only what etcd confirms is a violation.
 */
final class InvariantWatcher implements AutoCloseable {
  private static final long SETTLE_NANOS = 3_000_000_000L;

  private final KubernetesClient client;
  private final String namespace;
  private final Map<String, Long> limit;
  private final long cohortLimit;
  private final Map<String, String> clusterQueueOfLocalQueue;
  private final LongFunction<List<Workload>> workloadsAt;
  private final Map<String, Held> held = new HashMap<>();
  private final Map<String, TreeMap<Long, Boolean>> history = new HashMap<>();
  private final Map<String, Set<String>> workloadsOfJob = new HashMap<>();
  private final List<RunningJob> unchecked = new ArrayList<>();
  private final Set<String> runningChecked = new HashSet<>();
  private final List<String> violations = new CopyOnWriteArrayList<>();
  private final List<Watch> watches = new CopyOnWriteArrayList<>();
  private volatile boolean closed;
  private long events;
  private long admissions;
  private long releasesBeforeFinish;
  private long peakCohortUsage;

  /** What a Workload holding quota holds. */
  private record Held(String job, String clusterQueue, long usage, String admission) {}

  private record RunningJob(String name, String uid, long resourceVersion, long seenAt) {}

  /**
   * @param limit per ClusterQueue, nominal + borrowingLimit in millis of the one resource
   * @param cohortLimit the sum of the cohort's nominal quotas
   */
  InvariantWatcher(
      KubernetesClient client,
      String namespace,
      Map<String, Long> limit,
      long cohortLimit,
      Map<String, String> clusterQueueOfLocalQueue) {
    this(
        client,
        namespace,
        limit,
        cohortLimit,
        clusterQueueOfLocalQueue,
        rv ->
            client
                .resources(Workload.class)
                .inNamespace(namespace)
                .list(
                    new ListOptionsBuilder()
                        .withResourceVersion(Long.toString(rv))
                        .withResourceVersionMatch("Exact")
                        .build())
                .getItems());
  }

  /**
   * @param workloadsAt the namespace's Workloads as they were at a resourceVersion (etcd's own
   *     history; the unit test gives its own)
   */
  InvariantWatcher(
      KubernetesClient client,
      String namespace,
      Map<String, Long> limit,
      long cohortLimit,
      Map<String, String> clusterQueueOfLocalQueue,
      LongFunction<List<Workload>> workloadsAt) {
    this.workloadsAt = workloadsAt;
    this.client = client;
    this.namespace = namespace;
    this.limit = Map.copyOf(limit);
    this.cohortLimit = cohortLimit;
    this.clusterQueueOfLocalQueue = Map.copyOf(clusterQueueOfLocalQueue);
  }

  void start() {
    follow(client.resources(Workload.class), this::onWorkload);
    follow(client.batch().v1().jobs(), this::onJob);
  }

  /** Lists, then watches from the list's resourceVersion; a closed watch lists again. */
  private <T extends HasMetadata, L extends KubernetesResourceList<T>> void follow(
      MixedOperation<T, L, ? extends Resource<T>> resources,
      BiConsumer<Watcher.Action, T> handler) {
    if (closed) {
      return;
    }
    L list = resources.inNamespace(namespace).list();
    for (T item : list.getItems()) {
      handler.accept(Watcher.Action.MODIFIED, item);
    }
    Watch watch =
        resources
            .inNamespace(namespace)
            .withResourceVersion(list.getMetadata().getResourceVersion())
            .watch(
                new Watcher<T>() {
                  @Override
                  public void eventReceived(Action action, T resource) {
                    handler.accept(action, resource);
                  }

                  @Override
                  public void onClose(WatcherException cause) {
                    follow(resources, handler);
                  }
                });
    watches.add(watch);
  }

  synchronized void onWorkload(Watcher.Action action, Workload wl) {
    events++;
    String uid = wl.getMetadata().getUid();
    long rv = Long.parseLong(wl.getMetadata().getResourceVersion());
    String job =
        wl.getMetadata().getOwnerReferences() == null
            ? null
            : wl.getMetadata().getOwnerReferences().stream()
                .filter(o -> "Job".equals(o.getKind()))
                .map(OwnerReference::getUid)
                .findFirst()
                .orElse(null);
    if (job != null) {
      workloadsOfJob.computeIfAbsent(job, j -> new HashSet<>()).add(uid);
    }
    boolean holding = action != Watcher.Action.DELETED && holdsQuota(wl);
    history.computeIfAbsent(uid, u -> new TreeMap<>()).put(rv, holding);
    Held before = held.get(uid);
    String what = wl.getMetadata().getName() + " " + action + " at resourceVersion " + rv;
    if (holding) {
      Held now = held(wl, job);
      if (before == null) {
        admissions++;
      } else if (!before.admission().equals(now.admission())) {
        violations.add(
            wl.getMetadata().getName()
                + " admitted again without a release: "
                + before.admission()
                + " then "
                + now.admission()
                + " ("
                + what
                + ")");
      }
      String expected = clusterQueueOfLocalQueue.get(wl.getSpec().queueName);
      if (!now.clusterQueue().equals(expected)) {
        violations.add(
            wl.getMetadata().getName()
                + " of LocalQueue "
                + wl.getSpec().queueName
                + " admitted to "
                + now.clusterQueue()
                + " ("
                + what
                + ")");
      }
      held.put(uid, now);
    } else if (before != null) {
      held.remove(uid);
      if (!condition(wl, "Finished")) {
        releasesBeforeFinish++;
      }
    }
    checkQuota(what);
    checkRunningJobs(System.nanoTime() - SETTLE_NANOS);
  }

  private static boolean holdsQuota(Workload wl) {
    return wl.getStatus() != null
        && wl.getStatus().admission != null
        && condition(wl, "QuotaReserved")
        && !condition(wl, "Finished");
  }

  private static boolean condition(Workload wl, String type) {
    List<Condition> conditions = wl.getStatus() == null ? null : wl.getStatus().conditions;
    return conditions != null
        && conditions.stream().anyMatch(c -> type.equals(c.type) && c.isTrue());
  }

  private static Held held(Workload wl, String job) {
    long usage = 0;
    StringBuilder admission = new StringBuilder(wl.getStatus().admission.clusterQueue);
    for (PodSetAssignment ps : wl.getStatus().admission.podSetAssignments) {
      admission.append(' ').append(ps.name).append(ps.flavors).append(ps.resourceUsage);
      for (var used : ps.resourceUsage.entrySet()) {
        usage += Quantity.parse(used.getKey(), used.getValue().toString());
      }
    }
    return new Held(
        job == null ? wl.getMetadata().getUid() : job,
        wl.getStatus().admission.clusterQueue,
        usage,
        admission.toString());
  }

  private void checkQuota(String after) {
    Map<String, Long> perQueue = new HashMap<>();
    Map<String, Integer> perJob = new HashMap<>();
    long cohort = 0;
    for (Held h : held.values()) {
      perQueue.merge(h.clusterQueue(), h.usage(), Long::sum);
      perJob.merge(h.job(), 1, Integer::sum);
      cohort += h.usage();
    }
    peakCohortUsage = Math.max(peakCohortUsage, cohort);
    perQueue.forEach(
        (queue, used) -> {
          if (used > limit.getOrDefault(queue, 0L)) {
            violations.add(
                "ClusterQueue "
                    + queue
                    + " holds "
                    + used
                    + "m, over nominal +"
                    + " borrowingLimit "
                    + limit.get(queue)
                    + "m, after "
                    + after);
          }
        });
    if (cohort > cohortLimit) {
      violations.add(
          "the cohort holds " + cohort + "m, over its " + cohortLimit + "m, after " + after);
    }
    perJob.forEach(
        (job, n) -> {
          if (n > 1) {
            violations.add("Job " + job + " has " + n + " Workloads holding quota after " + after);
          }
        });
  }

  synchronized void onJob(Watcher.Action action, Job job) {
    boolean finished =
        job.getStatus() != null
            && job.getStatus().getConditions() != null
            && job.getStatus().getConditions().stream()
                .anyMatch(
                    c ->
                        "True".equals(c.getStatus())
                            && ("Complete".equals(c.getType())
                                || "Failed".equals(c.getType())
                                || "SuccessCriteriaMet".equals(c.getType())));
    if (action != Watcher.Action.DELETED
        && Boolean.FALSE.equals(job.getSpec().getSuspend())
        && !finished) {
      unchecked.add(
          new RunningJob(
              job.getMetadata().getName(),
              job.getMetadata().getUid(),
              Long.parseLong(job.getMetadata().getResourceVersion()),
              System.nanoTime()));
    }
    checkRunningJobs(System.nanoTime() - SETTLE_NANOS);
  }

  /** Each Job seen running before {@code seenBefore}: a Workload of it held quota at that RV. */
  private void checkRunningJobs(long seenBefore) {
    for (Iterator<RunningJob> it = unchecked.iterator(); it.hasNext(); ) {
      RunningJob running = it.next();
      if (running.seenAt() - seenBefore > 0) {
        continue;
      }
      it.remove();
      runningChecked.add(running.uid());
      boolean admitted =
          workloadsOfJob.getOrDefault(running.uid(), Set.of()).stream()
              .map(history::get)
              .map(h -> h.floorEntry(running.resourceVersion()))
              .anyMatch(e -> e != null && e.getValue());
      if (!admitted) {
        String unconfirmed = confirmedUnadmitted(running);
        if (unconfirmed != null) {
          violations.add(
              "Job "
                  + running.name()
                  + " unsuspended at resourceVersion "
                  + running.resourceVersion()
                  + " without a Workload holding quota: "
                  + unconfirmed);
        }
      }
    }
  }

  /**
   * What etcd held for the Job's Workloads at the Job's resourceVersion, or null if one of them
   * held quota then (the watch history missed it). If etcd can no longer say (compacted, or
   * unreachable), the watch history stands, and the message says so.
   */
  private String confirmedUnadmitted(RunningJob running) {
    List<Workload> then;
    try {
      then = workloadsAt.apply(running.resourceVersion());
    } catch (RuntimeException e) {
      return "from the watch history only (etcd at that revision: " + e.getMessage() + ")";
    }
    List<String> seen = new ArrayList<>();
    for (Workload wl : then) {
      boolean ofJob =
          wl.getMetadata().getOwnerReferences() != null
              && wl.getMetadata().getOwnerReferences().stream()
                  .anyMatch(o -> running.uid().equals(o.getUid()));
      if (!ofJob) {
        continue;
      }
      if (holdsQuota(wl)) {
        return null;
      }
      seen.add(describe(wl));
    }
    return "confirmed in etcd at that revision, where its Workloads were "
        + (seen.isEmpty() ? "none" : String.join("; ", seen));
  }

  private static String describe(Workload wl) {
    StringBuilder text =
        new StringBuilder(wl.getMetadata().getName())
            .append(" at resourceVersion ")
            .append(wl.getMetadata().getResourceVersion())
            .append(": admission ")
            .append(
                wl.getStatus() == null || wl.getStatus().admission == null
                    ? "none"
                    : wl.getStatus().admission.clusterQueue);
    if (wl.getStatus() != null && wl.getStatus().conditions != null) {
      for (Condition c : wl.getStatus().conditions) {
        text.append(", ").append(c.type).append('=').append(c.status).append(' ').append(c.reason);
      }
    }
    return text.toString();
  }

  /** Checks what is left to check, now that the run is over. */
  synchronized void finish() {
    checkRunningJobs(System.nanoTime());
  }

  List<String> violations() {
    return List.copyOf(violations);
  }

  synchronized long events() {
    return events;
  }

  /** Workloads that took quota (a re-admission after an eviction counts again). */
  synchronized long admissions() {
    return admissions;
  }

  /** Quota released before the Workload finished: evictions, preemptions among them. */
  synchronized long evictions() {
    return releasesBeforeFinish;
  }

  synchronized long peakCohortUsage() {
    return peakCohortUsage;
  }

  /** Jobs seen running, checked or still to be checked. */
  synchronized int runningJobsSeen() {
    return runningChecked.size() + unchecked.size();
  }

  /** Jobs whose running was checked against their admission. */
  synchronized int runningJobsChecked() {
    return runningChecked.size();
  }

  @Override
  public void close() {
    closed = true;
    watches.forEach(Watch::close);
  }
}
