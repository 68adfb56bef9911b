package dev.berth.e2e.faults;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.api.v1beta1.Admission;
import dev.berth.api.v1beta1.Berth;
import dev.berth.api.v1beta1.Condition;
import dev.berth.api.v1beta1.PodSetAssignment;
import dev.berth.api.v1beta1.Workload;
import dev.berth.api.v1beta1.WorkloadSpec;
import dev.berth.api.v1beta1.WorkloadStatus;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.fabric8.kubernetes.client.Watcher.Action;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The suite's watcher flags each violation it is there to catch, takes its verdicts from etcd
 * rather than from its streams, and flags nothing in a run within the rules. "etcd" here keeps
 * every version written; the watcher is fed only the events a test chooses, as a stream that missed
 * some would.
 */
class InvariantWatcherTest {
  /** Two ClusterQueues a and b, 4 cpu each with nominal + borrowing, 6 cpu in the cohort. */
  private final InvariantWatcher watcher =
      new InvariantWatcher(
          null,
          "ns",
          new QuotaRules(Map.of("a", 4_000L, "b", 4_000L), 6_000L, Map.of("a", "a", "b", "b")),
          new Etcd());

  /** Every version written, in order; a null object is a deletion. */
  private final List<Version> written = new ArrayList<>();

  private record Version(long revision, String key, HasMetadata object) {}

  private boolean etcdDown;
  private long revision = 100;

  /** As an Exact list reads it: each object's newest version at or before the revision. */
  private final class Etcd implements AtRevision {
    @Override
    public List<Workload> workloads(long rv, String jobUid) {
      return at(rv, Workload.class, jobUid);
    }

    @Override
    public List<Pod> pods(long rv, String jobUid) {
      return at(rv, Pod.class, jobUid);
    }

    private <T extends HasMetadata> List<T> at(long rv, Class<T> kind, String jobUid) {
      if (etcdDown) {
        throw new IllegalStateException("etcd unreachable");
      }
      Map<String, HasMetadata> then = new TreeMap<>();
      for (Version v : written) {
        if (v.revision() <= rv && v.key().startsWith(kind.getSimpleName() + "/")) {
          then.put(v.key(), v.object());
        }
      }
      return then.values().stream()
          .filter(o -> o != null && (jobUid == null || AtRevision.ownedBy(o, jobUid)))
          .map(kind::cast)
          .toList();
    }
  }

  private <T extends HasMetadata> T write(T object) {
    object.getMetadata().setResourceVersion(Long.toString(++revision));
    written.add(new Version(revision, key(object), object));
    return object;
  }

  private static String key(HasMetadata object) {
    return object.getClass().getSimpleName() + "/" + object.getMetadata().getName();
  }

  /** Deleted in etcd; returns the last version as the DELETED event carries it. */
  private <T extends HasMetadata> T delete(T object) {
    object.getMetadata().setResourceVersion(Long.toString(++revision));
    written.add(new Version(revision, key(object), null));
    return object;
  }

  private static List<OwnerReference> ownedBy(String job) {
    return List.of(new OwnerReference("batch/v1", true, true, "Job", job, "uid-" + job));
  }

  private Workload workload(
      String name, String job, String queue, String admittedTo, String cpu, boolean finished) {
    Workload wl = new Workload();
    wl.getMetadata().setName(name);
    wl.getMetadata().setUid("uid-" + name);
    wl.getMetadata().setLabels(Map.of(Berth.OWNER_UID_LABEL, "uid-" + job));
    wl.getMetadata().setOwnerReferences(ownedBy(job));
    wl.setSpec(new WorkloadSpec());
    wl.getSpec().queueName = queue;
    wl.setStatus(new WorkloadStatus());
    wl.getStatus().conditions = new ArrayList<>();
    if (admittedTo != null) {
      PodSetAssignment ps = new PodSetAssignment();
      ps.name = "main";
      ps.flavors = Map.of("cpu", "default");
      ps.resourceUsage = Map.of("cpu", new Quantity(cpu));
      wl.getStatus().admission = new Admission();
      wl.getStatus().admission.clusterQueue = admittedTo;
      wl.getStatus().admission.podSetAssignments = List.of(ps);
      wl.getStatus().conditions.add(new Condition("QuotaReserved", "True", "QuotaReserved", ""));
    }
    if (finished) {
      wl.getStatus().conditions.add(new Condition("Finished", "True", "Succeeded", ""));
    }
    return write(wl);
  }

  private Workload pending(String name, String job) {
    return workload(name, job, "a", null, "0", false);
  }

  private Workload admitted(String name, String job, String cpu) {
    return workload(name, job, "a", "a", cpu, false);
  }

  private Workload finished(String name, String job, String cpu) {
    return workload(name, job, "a", "a", cpu, true);
  }

  private Workload evicted(String name, String job) {
    Workload wl = pending(name, job);
    wl.getStatus().conditions.add(new Condition("Evicted", "True", "Preempted", ""));
    return wl;
  }

  private Job job(String name, boolean suspended, boolean complete) {
    JobBuilder job =
        new JobBuilder()
            .withNewMetadata()
            .withName(name)
            .withUid("uid-" + name)
            .endMetadata()
            .withNewSpec()
            .withSuspend(suspended)
            .endSpec();
    if (complete) {
      job.withNewStatus()
          .addNewCondition()
          .withType("Complete")
          .withStatus("True")
          .endCondition()
          .endStatus();
    }
    return write(job.build());
  }

  private Pod pod(String name, String job, String node, String phase, boolean terminating) {
    PodBuilder pod =
        new PodBuilder()
            .withNewMetadata()
            .withName(name)
            .withUid("uid-" + name)
            .withOwnerReferences(ownedBy(job))
            .withDeletionTimestamp(terminating ? "2026-12-07T03:00:00Z" : null)
            .endMetadata()
            .withNewSpec()
            .withNodeName(node)
            .endSpec()
            .withNewStatus()
            .withPhase(phase)
            .endStatus();
    return write(pod.build());
  }

  /** One Job through admission, its pod's run, and its finish, every event seen. */
  private void runsOnce(String job, String workload, String pod) {
    watcher.onWorkload(Action.ADDED, pending(workload, job));
    watcher.onWorkload(Action.MODIFIED, admitted(workload, job, "1"));
    watcher.onJob(Action.MODIFIED, job(job, false, false));
    watcher.onPod(Action.ADDED, pod(pod, job, null, "Pending", false));
    watcher.onPod(Action.MODIFIED, pod(pod, job, "node-0", "Pending", false));
    watcher.onPod(Action.MODIFIED, pod(pod, job, "node-0", "Running", false));
    watcher.onPod(Action.MODIFIED, pod(pod, job, "node-0", "Succeeded", false));
    watcher.onJob(Action.MODIFIED, job(job, false, true));
    watcher.onWorkload(Action.MODIFIED, finished(workload, job, "1"));
  }

  @Test
  void aRunWithinTheRulesIsNoViolation() {
    runsOnce("j1", "w1", "p1");
    // j2 is preempted while its pod runs: suspended, the pod goes, then the quota; admitted again.
    watcher.onWorkload(Action.ADDED, pending("w2", "j2"));
    watcher.onWorkload(Action.MODIFIED, admitted("w2", "j2", "2"));
    watcher.onJob(Action.MODIFIED, job("j2", false, false));
    watcher.onPod(Action.MODIFIED, pod("p2", "j2", "node-1", "Running", false));
    watcher.onJob(Action.MODIFIED, job("j2", true, false));
    watcher.onPod(Action.MODIFIED, pod("p2", "j2", "node-1", "Running", true));
    watcher.onPod(Action.DELETED, delete(pod("p2", "j2", "node-1", "Running", true)));
    watcher.onWorkload(Action.MODIFIED, evicted("w2", "j2"));
    watcher.onWorkload(Action.MODIFIED, admitted("w2", "j2", "2"));
    watcher.onJob(Action.MODIFIED, job("j2", false, false));
    watcher.onPod(Action.MODIFIED, pod("p3", "j2", "node-1", "Running", false));
    watcher.onPod(Action.MODIFIED, pod("p3", "j2", "node-1", "Succeeded", false));
    watcher.onJob(Action.MODIFIED, job("j2", false, true));
    watcher.onWorkload(Action.MODIFIED, finished("w2", "j2", "2"));
    watcher.finish();

    assertThat(watcher.violations()).isEmpty();
    assertThat(watcher.disagreements()).isEmpty();
    assertThat(watcher.admissions()).isEqualTo(3);
    assertThat(watcher.evictions()).isEqualTo(1);
    assertThat(watcher.runningJobsChecked()).isEqualTo(2);
    assertThat(watcher.podsChecked()).isEqualTo(3);
    assertThat(watcher.releasesChecked()).isEqualTo(3);
  }

  @Test
  void aClusterQueueOverNominalPlusBorrowingIsAViolation() {
    watcher.onWorkload(Action.ADDED, workload("w1", "j1", "a", "a", "3", false));
    watcher.onWorkload(Action.ADDED, workload("w2", "j2", "a", "a", "2", false));
    watcher.checkPending();

    assertThat(watcher.violations())
        .singleElement()
        .asString()
        .contains("ClusterQueue a holds 5000m")
        .contains("confirmed in etcd");
  }

  @Test
  void aCohortOverItsNominalQuotasIsAViolation() {
    watcher.onWorkload(Action.ADDED, workload("w1", "j1", "a", "a", "4", false));
    watcher.onWorkload(Action.ADDED, workload("w2", "j2", "b", "b", "3", false));
    watcher.checkPending();

    assertThat(watcher.violations()).singleElement().asString().contains("the cohort holds 7000m");
  }

  @Test
  void quotaOverOnlyOnAStaleStreamIsNoViolation() {
    watcher.onWorkload(Action.ADDED, admitted("w1", "j1", "3"));
    // w1 gave its quota back; the stream has not shown it yet.
    finished("w1", "j1", "3");
    watcher.onWorkload(Action.ADDED, admitted("w2", "j2", "2"));
    watcher.checkPending();

    assertThat(watcher.violations()).isEmpty();
    assertThat(watcher.disagreements())
        .singleElement()
        .asString()
        .contains("etcd at that revision did not");
  }

  @Test
  void twoWorkloadsOfOneJobHoldingQuotaIsAViolation() {
    watcher.onWorkload(Action.ADDED, workload("w1", "j1", "a", "a", "1", false));
    watcher.onWorkload(Action.ADDED, workload("w2", "j1", "b", "b", "1", false));
    watcher.checkPending();

    assertThat(watcher.violations())
        .anySatisfy(v -> assertThat(v).contains("Job uid-j1 has 2 Workloads holding quota"));
  }

  @Test
  void anAdmissionReplacedWithoutAReleaseOrIntoAnotherQueueIsAViolation() {
    watcher.onWorkload(Action.ADDED, workload("w1", "j1", "a", "a", "1", false));
    watcher.onWorkload(Action.MODIFIED, workload("w1", "j1", "a", "b", "1", false));
    watcher.checkPending();

    assertThat(watcher.violations())
        .anySatisfy(v -> assertThat(v).contains("w1 admitted again without a release"));
    assertThat(watcher.violations())
        .anySatisfy(v -> assertThat(v).contains("w1 of LocalQueue a admitted to b"));
  }

  @Test
  void aJobUnsuspendedBeforeItsWorkloadHoldsQuotaIsAViolation() {
    watcher.onWorkload(Action.ADDED, pending("w1", "j1"));
    watcher.onJob(Action.MODIFIED, job("j1", false, false));
    // Admitted after the Job was unsuspended: too late.
    watcher.onWorkload(Action.MODIFIED, admitted("w1", "j1", "1"));
    watcher.onJob(Action.MODIFIED, job("j2", false, false));
    watcher.checkPending();

    assertThat(watcher.violations())
        .hasSize(2)
        .allSatisfy(v -> assertThat(v).contains("unsuspended").contains("without a Workload"));
  }

  @Test
  void aJobStartedOnAReleaseTheStreamMissedIsAViolation() {
    watcher.onWorkload(Action.ADDED, admitted("w1", "j1", "1"));
    // Released in etcd; the watcher's stream still shows w1 holding quota.
    evicted("w1", "j1");
    watcher.onJob(Action.MODIFIED, job("j1", false, false));
    watcher.checkPending();

    assertThat(watcher.violations())
        .singleElement()
        .asString()
        .contains("Job j1 unsuspended")
        .contains("w1 at resourceVersion 102: admission none");
  }

  @Test
  void anAdmissionTheStreamMissedIsReadFromEtcdAndIsNoViolation() {
    watcher.onWorkload(Action.ADDED, pending("w1", "j1"));
    // Admitted while the watcher's Workload stream lagged behind its Job and pod streams.
    admitted("w1", "j1", "1");
    watcher.onJob(Action.MODIFIED, job("j1", false, false));
    watcher.onPod(Action.MODIFIED, pod("p1", "j1", "node-0", "Running", false));
    watcher.checkPending();

    assertThat(watcher.violations()).isEmpty();
    assertThat(watcher.runningJobsChecked()).isEqualTo(1);
    assertThat(watcher.podsChecked()).isEqualTo(1);
  }

  @Test
  void aPodBoundWhileItsWorkloadHoldsNoQuotaIsAViolation() {
    watcher.onWorkload(Action.ADDED, pending("w1", "j1"));
    watcher.onPod(Action.ADDED, pod("p1", "j1", null, "Pending", false));
    watcher.onPod(Action.MODIFIED, pod("p1", "j1", "node-0", "Pending", false));
    watcher.checkPending();

    assertThat(watcher.violations())
        .singleElement()
        .asString()
        .contains("pod p1 bound to node-0")
        .contains("without a Workload holding quota")
        .contains("w1 at resourceVersion 101: admission none")
        .endsWith("the pod did not exist yet then (created after the quota went)");
  }

  @Test
  void quotaReleasedWhileAPodOfTheJobStillRunsIsAViolation() {
    // j1 preempted: its quota released while its pod, terminating, is still bound and Running.
    watcher.onWorkload(Action.ADDED, admitted("w1", "j1", "1"));
    watcher.onPod(Action.MODIFIED, pod("p1", "j1", "node-0", "Running", false));
    watcher.onPod(Action.MODIFIED, pod("p1", "j1", "node-0", "Running", true));
    watcher.onWorkload(Action.MODIFIED, evicted("w1", "j1"));
    // j2 finished while its pod had not: Succeeded only after the release.
    watcher.onWorkload(Action.ADDED, admitted("w2", "j2", "1"));
    watcher.onPod(Action.MODIFIED, pod("p2", "j2", "node-1", "Running", false));
    watcher.onWorkload(Action.MODIFIED, finished("w2", "j2", "1"));
    watcher.onPod(Action.MODIFIED, pod("p2", "j2", "node-1", "Succeeded", false));
    watcher.checkPending();

    assertThat(watcher.violations())
        .containsExactly(
            "the quota of w1 (evicted: Preempted) released at resourceVersion 104 while pods of"
                + " Job uid-j1 still ran: p1 (Running on node-0, terminating) (confirmed in etcd"
                + " at that revision)",
            "the quota of w2 (finished) released at resourceVersion 107 while pods of Job uid-j2"
                + " still ran: p2 (Running on node-1) (confirmed in etcd at that revision)");
  }

  @Test
  void anAdmissionAfterTheJobsWorkloadFinishedIsAViolation() {
    runsOnce("j1", "w1", "p1");
    watcher.onWorkload(Action.MODIFIED, admitted("w1", "j1", "1"));
    watcher.finish();

    assertThat(watcher.violations())
        .anySatisfy(
            v -> assertThat(v).contains("w1 admitted at").contains("after its Workload finished"));
    assertThat(watcher.violations())
        .anySatisfy(
            v ->
                assertThat(v)
                    .contains("Job j1 not admitted exactly once: 2 admissions, 0 evictions"));
  }

  @Test
  void aSecondWorkloadOfAJobAdmittedWithoutAnEvictionIsAViolation() {
    watcher.onWorkload(Action.ADDED, admitted("w1", "j1", "1"));
    watcher.onWorkload(Action.ADDED, admitted("w2", "j1", "1"));
    watcher.checkPending();

    assertThat(watcher.violations())
        .anySatisfy(
            v -> assertThat(v).contains("w2 admitted at").contains("admission 2 of Job uid-j1"));
  }

  @Test
  void aJobThatNeverCompletedOrWhoseWorkloadNeverFinishedIsAViolation() {
    watcher.onWorkload(Action.ADDED, admitted("w1", "j1", "1"));
    watcher.onJob(Action.MODIFIED, job("j1", false, false));
    watcher.onJob(Action.MODIFIED, job("j1", false, true));
    watcher.onWorkload(Action.ADDED, admitted("w2", "j2", "1"));
    watcher.onJob(Action.MODIFIED, job("j2", false, false));
    watcher.finish();

    assertThat(watcher.violations())
        .containsExactlyInAnyOrder(
            "Job j1 not admitted exactly once: 1 admissions, 0 evictions, 0 finishes of its"
                + " Workloads (each confirmed in etcd; exactly once is admissions = 1 + evictions"
                + " and one finish)",
            "Job j2 did not complete");
  }

  @Test
  void aVerdictEtcdCannotGiveIsReported() {
    watcher.onWorkload(Action.ADDED, pending("w1", "j1"));
    watcher.onJob(Action.MODIFIED, job("j1", false, false));
    etcdDown = true;
    watcher.checkPending();

    assertThat(watcher.violations())
        .singleElement()
        .asString()
        .contains("Job j1 unsuspended")
        .contains("no verdict, etcd at that revision could not be read");
  }
}
