package dev.berth.e2e.faults;

import static dev.berth.e2e.faults.QuotaRules.holdsQuota;

import dev.berth.api.v1beta1.Condition;
import dev.berth.api.v1beta1.Workload;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KubernetesResourceList;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.fabric8.kubernetes.client.dsl.MixedOperation;
import io.fabric8.kubernetes.client.dsl.Resource;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.stream.Collectors;

/**
 * The test's own view of admission, from its own client straight to the API server (never through
 * the fault proxy), independent of Berth's code. It watches Workloads, Jobs and pods; the streams
 * only say where to look: every verdict is taken from what etcd held at the event's revision
 * ({@link AtRevision}, {@code resourceVersionMatch=Exact}), because three watches run apart from
 * one another and a stream's view can be stale. The rules (docs/reliability.md):
 *
 * <ul>
 *   <li><b>Quota</b>: each ClusterQueue within nominal + borrowingLimit, the cohort within its
 *       nominal quotas, no Job with two Workloads holding quota, every admission into its
 *       LocalQueue's ClusterQueue ({@link QuotaRules}); checked on the stream at every Workload
 *       event, and what breaks them is read again from etcd at that revision.
 *   <li><b>No admission replaced</b> while it holds quota: etcd holds it with one admission just
 *       before the revision and another at it.
 *   <li><b>Holding quota when started</b>: a Job unsuspended, and each pod bound to a node (not
 *       Succeeded or Failed), has a Workload holding quota at that revision in etcd.
 *   <li><b>No quota released under running pods</b>: where a Workload stops holding quota (evicted,
 *       preempted, finished, deleted), etcd holds no pod of its Job bound and not Succeeded or
 *       Failed at that revision.
 *   <li><b>Exactly once</b>: each admission, eviction and finish of a Job's Workloads is confirmed
 *       in etcd (not holding just before, holding at the revision, or the reverse) and counted per
 *       Job; an admission after the first must follow an eviction of the one before (none after a
 *       finish), and at the end every Job completed, its Workloads finished once and were admitted
 *       1 + evictions times.
 * </ul>
 *
 * A verdict etcd cannot give (compacted, unreachable after a few tries) is itself reported; where
 * etcd contradicts what the stream showed, that goes to {@link #disagreements()}.
 */
final class InvariantWatcher implements AutoCloseable {
  /**
   * Tries of one check against etcd before its verdict is reported as unconfirmed; in the
   * background, the n-th try waits n seconds (about half a minute in all: an API server answering
   * "resource version too large" while its cache catches up, or busy, is not a verdict).
   */
  private static final int ATTEMPTS = 8;

  private final KubernetesClient client;
  private final String namespace;
  private final QuotaRules rules;
  private final AtRevision etcd;

  /** Each Workload's newest version on the stream, by UID. */
  private final Map<String, Workload> workloads = new HashMap<>();

  /** By the Job's UID; a Workload event may come before its Job's. */
  private final Map<String, JobRecord> jobs = new HashMap<>();

  /** Pods whose binding was checked, by UID. */
  private final Set<String> podsBound = new HashSet<>();

  private final Deque<Check> pending = new ArrayDeque<>();
  private final Object checking = new Object();
  private final List<String> violations = new CopyOnWriteArrayList<>();
  private final List<String> disagreements = new CopyOnWriteArrayList<>();
  private final List<Watch> watches = new CopyOnWriteArrayList<>();
  private ScheduledExecutorService checker;
  private volatile boolean closed;
  private List<String> streamQuotaViolations = List.of();
  private long events;
  private long admissions;
  private long evictions;
  private long peakCohortUsage;
  private int podsChecked;
  private int releasesChecked;
  private int workloadGaps;

  /** What the watcher knows of one Job; counts are of transitions etcd confirmed. */
  private static final class JobRecord {
    String name;
    boolean unsuspended;
    boolean completed;
    int unsuspensionsChecked;
    int admissions;
    int evictions;
    int finishes;
    long finishedAt;

    /** Finishes the stream showed, confirmed or not yet. */
    int finishesSeen;
  }

  /** One verdict to take from etcd at a revision; null if the rule holds. */
  @FunctionalInterface
  private interface Verdict {
    String at(AtRevision etcd);
  }

  private static final class Check {
    final String what;
    final Verdict verdict;
    int attempts;
    long notBefore;

    Check(String what, Verdict verdict) {
      this.what = what;
      this.verdict = verdict;
    }
  }

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
        new QuotaRules(limit, cohortLimit, clusterQueueOfLocalQueue),
        AtRevision.of(client, namespace));
  }

  /** With {@code etcd} to read revisions from (the unit test gives its own). */
  InvariantWatcher(KubernetesClient client, String namespace, QuotaRules rules, AtRevision etcd) {
    this.client = client;
    this.namespace = namespace;
    this.rules = rules;
    this.etcd = etcd;
  }

  void start() {
    follow(client.resources(Workload.class), this::onWorkload, this::onWorkloadList);
    follow(client.batch().v1().jobs(), this::onJob, list -> {});
    follow(client.pods(), this::onPod, list -> {});
    checker = Executors.newSingleThreadScheduledExecutor(r -> new Thread(r, "invariant-checks"));
    checker.scheduleWithFixedDelay(() -> drain(false), 200, 200, TimeUnit.MILLISECONDS);
  }

  /**
   * Lists, then watches from the list's resourceVersion. fabric8 resumes a broken watch from its
   * last resourceVersion by itself; a watch it closes (that version is gone) lists again, and what
   * changed in between is missing from the stream (counted, {@link #workloadGaps()}).
   */
  private <T extends HasMetadata, L extends KubernetesResourceList<T>> void follow(
      MixedOperation<T, L, ? extends Resource<T>> resources,
      BiConsumer<Watcher.Action, T> handler,
      Consumer<List<T>> onList) {
    if (closed) {
      return;
    }
    L list = resources.inNamespace(namespace).list();
    onList.accept(list.getItems());
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
                    follow(resources, handler, onList);
                  }
                });
    watches.add(watch);
  }

  /** A list after a closed watch: Workloads it no longer has went while no stream was open. */
  private synchronized void onWorkloadList(List<Workload> listed) {
    Set<String> present =
        listed.stream().map(w -> w.getMetadata().getUid()).collect(Collectors.toSet());
    if (!workloads.isEmpty()) {
      workloadGaps++;
    }
    workloads.keySet().retainAll(present);
  }

  synchronized void onWorkload(Watcher.Action action, Workload wl) {
    events++;
    String uid = wl.getMetadata().getUid();
    long rv = revision(wl);
    Workload before = workloads.get(uid);
    if (before != null && rv <= revision(before)) {
      return; // a list again after a closed watch: nothing new
    }
    boolean wasHolding = before != null && holdsQuota(before);
    if (action == Watcher.Action.DELETED) {
      workloads.remove(uid);
    } else {
      workloads.put(uid, wl);
    }
    boolean holding = action != Watcher.Action.DELETED && holdsQuota(wl);
    String name = wl.getMetadata().getName();
    String job = QuotaRules.job(wl);
    String what = name + " " + action + " at resourceVersion " + rv;

    peakCohortUsage = Math.max(peakCohortUsage, QuotaRules.cohortUsage(workloads.values()));
    List<String> found = rules.violations(workloads.values());
    if (!found.isEmpty() && !found.equals(streamQuotaViolations)) {
      queue(what, e -> confirmQuota(e, rv, what));
    }
    streamQuotaViolations = found;
    if (job == null) {
      return;
    }
    if (wasHolding && holding) {
      String was = QuotaRules.admission(before);
      if (!was.equals(QuotaRules.admission(wl))) {
        queue(what, e -> confirmReplaced(e, uid, name, job, rv, what));
      }
    } else if (holding) {
      queue(what, e -> confirmAdmission(e, uid, name, job, rv));
    } else if (wasHolding) {
      if (action != Watcher.Action.DELETED && QuotaRules.condition(wl, "Finished")) {
        record(job).finishesSeen++;
      }
      queue(what, e -> confirmRelease(e, uid, name, job, rv));
    }
  }

  synchronized void onJob(Watcher.Action action, Job job) {
    String uid = job.getMetadata().getUid();
    JobRecord record = record(uid);
    record.name = job.getMetadata().getName();
    boolean complete = jobCondition(job, "Complete");
    boolean finished =
        complete || jobCondition(job, "Failed") || jobCondition(job, "SuccessCriteriaMet");
    record.completed |= complete && action != Watcher.Action.DELETED;
    boolean running =
        action != Watcher.Action.DELETED
            && Boolean.FALSE.equals(job.getSpec().getSuspend())
            && !finished;
    if (running && !record.unsuspended) {
      long rv = revision(job);
      String what = "Job " + record.name + " unsuspended at resourceVersion " + rv;
      queue(what, e -> confirmStartedWithQuota(e, uid, rv, what, null));
    }
    record.unsuspended = running;
  }

  synchronized void onPod(Watcher.Action action, Pod pod) {
    String job = podJob(pod);
    if (job == null || action == Watcher.Action.DELETED || !runs(pod)) {
      return;
    }
    if (podsBound.add(pod.getMetadata().getUid())) {
      long rv = revision(pod);
      String what =
          "pod "
              + pod.getMetadata().getName()
              + " bound to "
              + pod.getSpec().getNodeName()
              + " at resourceVersion "
              + rv;
      String name = pod.getMetadata().getName();
      queue(what, e -> confirmStartedWithQuota(e, job, rv, what, name));
    }
  }

  /** Bound to a node and not Succeeded or Failed: it holds (or may hold) the node's resources. */
  private static boolean runs(Pod pod) {
    String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
    return pod.getSpec() != null
        && pod.getSpec().getNodeName() != null
        && !pod.getSpec().getNodeName().isEmpty()
        && !"Succeeded".equals(phase)
        && !"Failed".equals(phase);
  }

  private static String podJob(Pod pod) {
    List<OwnerReference> owners = pod.getMetadata().getOwnerReferences();
    return owners == null
        ? null
        : owners.stream()
            .filter(o -> "Job".equals(o.getKind()))
            .map(OwnerReference::getUid)
            .findFirst()
            .orElse(null);
  }

  private static boolean jobCondition(Job job, String type) {
    return job.getStatus() != null
        && job.getStatus().getConditions() != null
        && job.getStatus().getConditions().stream()
            .anyMatch(c -> type.equals(c.getType()) && "True".equals(c.getStatus()));
  }

  private static long revision(HasMetadata object) {
    return Long.parseLong(object.getMetadata().getResourceVersion());
  }

  private JobRecord record(String jobUid) {
    return jobs.computeIfAbsent(jobUid, j -> new JobRecord());
  }

  private void queue(String what, Verdict verdict) {
    pending.add(new Check(what, verdict));
  }

  // ---- verdicts, each from etcd at the event's revision ----

  /** The stream found the quota rules broken: are they, in etcd at that revision? */
  private String confirmQuota(AtRevision e, long rv, String what) {
    List<String> found = rules.violations(e.workloads(rv, null));
    if (found.isEmpty()) {
      disagreements.add(
          "the stream broke the quota rules after " + what + "; etcd at that revision did not");
      return null;
    }
    return String.join("; ", found) + ", after " + what + " (confirmed in etcd at that revision)";
  }

  /** Holding quota just before {@code rv} with one admission, and at it with another. */
  private String confirmReplaced(
      AtRevision e, String uid, String name, String job, long rv, String what) {
    Workload before = find(e.workloads(rv - 1, job), uid);
    Workload now = find(e.workloads(rv, job), uid);
    if (before == null || now == null || !holdsQuota(before) || !holdsQuota(now)) {
      disagreements.add(what + ": the stream showed an admission replaced; etcd did not");
      return null;
    }
    String was = QuotaRules.admission(before);
    String is = QuotaRules.admission(now);
    return was.equals(is)
        ? null
        : name
            + " admitted again without a release: "
            + was
            + " then "
            + is
            + " ("
            + what
            + ", confirmed in etcd at that revision and the one before)";
  }

  /** Not holding quota just before {@code rv}, holding at it: one admission of the Job. */
  private String confirmAdmission(AtRevision e, String uid, String name, String job, long rv) {
    Workload before = find(e.workloads(rv - 1, job), uid);
    Workload now = find(e.workloads(rv, job), uid);
    String what = name + " admitted at resourceVersion " + rv;
    if (now == null || !holdsQuota(now) || before != null && holdsQuota(before)) {
      disagreements.add(what + ": the stream showed an admission; etcd did not");
      return null;
    }
    synchronized (this) {
      JobRecord record = record(job);
      record.admissions++;
      admissions++;
      if (record.finishes > 0) {
        return what
            + ": an admission of Job "
            + nameOf(job)
            + " after its Workload finished at resourceVersion "
            + record.finishedAt
            + " (confirmed in etcd at both revisions)";
      }
      if (record.admissions - 1 > record.evictions) {
        return what
            + ": admission "
            + record.admissions
            + " of Job "
            + nameOf(job)
            + " after only "
            + record.evictions
            + " evictions (confirmed in etcd at that revision and the one before)";
      }
      return null;
    }
  }

  /**
   * Holding quota just before {@code rv}, not at it (or gone): an eviction or a finish, counted;
   * and no pod of the Job may run at {@code rv}.
   */
  private String confirmRelease(AtRevision e, String uid, String name, String job, long rv) {
    Workload before = find(e.workloads(rv - 1, job), uid);
    Workload now = find(e.workloads(rv, job), uid);
    String what = name + " released its quota at resourceVersion " + rv;
    if (before == null || !holdsQuota(before) || now != null && holdsQuota(now)) {
      disagreements.add(what + ": the stream showed a release; etcd did not");
      return null;
    }
    boolean finished = now != null && QuotaRules.condition(now, "Finished");
    List<String> running =
        e.pods(rv, job).stream()
            .filter(p -> AtRevision.ownedBy(p, job) && runs(p))
            .map(
                p ->
                    p.getMetadata().getName()
                        + " ("
                        + p.getStatus().getPhase()
                        + " on "
                        + p.getSpec().getNodeName()
                        + (p.getMetadata().getDeletionTimestamp() == null ? "" : ", terminating")
                        + ")")
            .toList();
    synchronized (this) {
      releasesChecked++;
      JobRecord record = record(job);
      if (finished) {
        record.finishes++;
        record.finishedAt = rv;
      } else {
        record.evictions++;
        evictions++;
      }
    }
    if (running.isEmpty()) {
      return null;
    }
    return "the quota of "
        + name
        + " ("
        + (finished ? "finished" : now == null ? "deleted" : "evicted: " + evictedReason(now))
        + ") released at resourceVersion "
        + rv
        + " while pods of Job "
        + nameOf(job)
        + " still ran: "
        + String.join(", ", running)
        + " (confirmed in etcd at that revision)";
  }

  /**
   * A Workload of the Job holds quota at {@code rv}: where the Job was unsuspended ({@code pod}
   * null) or where its pod {@code pod} was bound to a node.
   */
  private String confirmStartedWithQuota(
      AtRevision e, String job, long rv, String what, String pod) {
    List<Workload> then = e.workloads(rv, job);
    if (then.stream().noneMatch(w -> AtRevision.ownedBy(w, job) && holdsQuota(w))) {
      // The label narrows the read; one without it would be missed: read them all to be sure.
      then = e.workloads(rv, null);
    }
    List<Workload> own = then.stream().filter(w -> AtRevision.ownedBy(w, job)).toList();
    synchronized (this) {
      if (pod == null) {
        record(job).unsuspensionsChecked++;
      } else {
        podsChecked++;
      }
    }
    if (own.stream().anyMatch(QuotaRules::holdsQuota)) {
      return null;
    }
    return what
        + " (Job "
        + nameOf(job)
        + ") without a Workload holding quota: confirmed in etcd at that revision, where its"
        + " Workloads were "
        + (own.isEmpty()
            ? "none"
            : own.stream().map(InvariantWatcher::describe).collect(Collectors.joining("; ")))
        + (pod == null || own.isEmpty() ? "" : podBefore(e, job, pod, own));
  }

  /**
   * Whether the pod existed at the newest Workload version before its binding: created before the
   * quota went, or after, by a controller still acting on the Job as it was unsuspended.
   */
  private static String podBefore(AtRevision e, String job, String pod, List<Workload> own) {
    long last = own.stream().mapToLong(InvariantWatcher::revision).max().orElseThrow();
    return e.pods(last, job).stream()
        .filter(p -> pod.equals(p.getMetadata().getName()))
        .findFirst()
        .map(
            p ->
                "; the pod existed then ("
                    + p.getStatus().getPhase()
                    + (p.getSpec().getNodeName() == null
                        ? ", not bound"
                        : " on " + p.getSpec().getNodeName())
                    + ")")
        .orElse("; the pod did not exist yet then (created after the quota went)");
  }

  private static Workload find(List<Workload> list, String uid) {
    return list.stream().filter(w -> uid.equals(w.getMetadata().getUid())).findFirst().orElse(null);
  }

  private static String evictedReason(Workload wl) {
    return wl.getStatus() == null || wl.getStatus().conditions == null
        ? "no conditions"
        : wl.getStatus().conditions.stream()
            .filter(c -> "Evicted".equals(c.type) && c.isTrue())
            .map(c -> c.reason)
            .findFirst()
            .orElse("no Evicted condition");
  }

  private synchronized String nameOf(String job) {
    JobRecord record = jobs.get(job);
    return record == null || record.name == null ? job : record.name;
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

  /**
   * Takes the verdicts waiting, in the order their events came. A read of etcd that fails leaves
   * its check first in line, tried again after a wait that grows ({@code toTheEnd}: at once); after
   * {@value #ATTEMPTS} failures the verdict is reported as one etcd could not give.
   */
  private void drain(boolean toTheEnd) {
    synchronized (checking) {
      while (true) {
        Check check;
        synchronized (this) {
          check = pending.peek();
          if (check == null
              || !toTheEnd && check.attempts > 0 && System.nanoTime() - check.notBefore < 0) {
            return;
          }
          pending.poll();
        }
        try {
          String violation = check.verdict.at(etcd);
          if (violation != null) {
            violations.add(violation);
          }
        } catch (RuntimeException e) {
          if (++check.attempts >= ATTEMPTS) {
            violations.add(
                check.what + ": no verdict, etcd at that revision could not be read: " + e);
            continue;
          }
          check.notBefore = System.nanoTime() + TimeUnit.SECONDS.toNanos(check.attempts);
          synchronized (this) {
            pending.addFirst(check);
          }
          if (!toTheEnd) {
            return;
          }
        }
      }
    }
  }

  /**
   * The streams have shown what the run ended with: every one of {@code jobs} Jobs complete, each
   * with a finished Workload, and no verdict waiting.
   */
  synchronized boolean caughtUp(int jobs) {
    long done =
        this.jobs.values().stream()
            .filter(r -> r.name != null && r.completed && r.finishesSeen > 0)
            .count();
    return done >= jobs && pending.isEmpty();
  }

  /** Takes every verdict still waiting. */
  void checkPending() {
    drain(true);
  }

  /** Takes every verdict still waiting, then counts each Job's admissions against its evictions. */
  void finish() {
    checkPending();
    synchronized (this) {
      for (JobRecord r : new TreeMap<>(byName()).values()) {
        if (!r.completed) {
          violations.add("Job " + r.name + " did not complete");
        } else if (r.finishes != 1 || r.admissions != 1 + r.evictions) {
          violations.add(
              "Job "
                  + r.name
                  + " not admitted exactly once: "
                  + r.admissions
                  + " admissions, "
                  + r.evictions
                  + " evictions, "
                  + r.finishes
                  + " finishes of its Workloads (each confirmed in etcd; exactly once is"
                  + " admissions = 1 + evictions and one finish"
                  + (workloadGaps == 0
                      ? ")"
                      : "; the Workload watch was listed again " + workloadGaps + " times)"));
        }
      }
    }
  }

  private Map<String, JobRecord> byName() {
    Map<String, JobRecord> named = new HashMap<>();
    jobs.values().stream().filter(r -> r.name != null).forEach(r -> named.put(r.name, r));
    return named;
  }

  List<String> violations() {
    return List.copyOf(violations);
  }

  /** Where etcd contradicted the stream: the watcher's own fault, never Berth's. */
  List<String> disagreements() {
    return List.copyOf(disagreements);
  }

  synchronized long events() {
    return events;
  }

  /** Admissions confirmed in etcd (a re-admission after an eviction counts again). */
  synchronized long admissions() {
    return admissions;
  }

  /** Quota released before the Workload finished, confirmed in etcd: preemptions among them. */
  synchronized long evictions() {
    return evictions;
  }

  synchronized long peakCohortUsage() {
    return peakCohortUsage;
  }

  /** Jobs seen unsuspended, checked or still to be checked. */
  synchronized int runningJobsSeen() {
    return (int)
        jobs.values().stream().filter(r -> r.unsuspended || r.unsuspensionsChecked > 0).count();
  }

  /** Jobs whose unsuspension was checked against their admission in etcd. */
  synchronized int runningJobsChecked() {
    return (int) jobs.values().stream().filter(r -> r.unsuspensionsChecked > 0).count();
  }

  /** Pods whose binding was checked against their Job's admission in etcd. */
  synchronized int podsChecked() {
    return podsChecked;
  }

  /** Releases of quota checked against the pods running at that revision in etcd. */
  synchronized int releasesChecked() {
    return releasesChecked;
  }

  /** Lists of Workloads after a closed watch: stretches of history the stream did not show. */
  synchronized int workloadGaps() {
    return workloadGaps;
  }

  @Override
  public void close() {
    closed = true;
    watches.forEach(Watch::close);
    if (checker != null) {
      checker.shutdownNow();
    }
  }
}
