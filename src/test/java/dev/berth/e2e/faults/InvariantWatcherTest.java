package dev.berth.e2e.faults;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.api.v1beta1.Admission;
import dev.berth.api.v1beta1.Condition;
import dev.berth.api.v1beta1.PodSetAssignment;
import dev.berth.api.v1beta1.Workload;
import dev.berth.api.v1beta1.WorkloadSpec;
import dev.berth.api.v1beta1.WorkloadStatus;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.fabric8.kubernetes.client.Watcher.Action;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** The suite's watcher flags what it is there to catch, and nothing in a run within the rules. */
class InvariantWatcherTest {
  /** Two ClusterQueues a and b, 4 cpu each with nominal + borrowing, 6 cpu in the cohort. */
  private final InvariantWatcher watcher =
      new InvariantWatcher(
          null,
          "ns",
          Map.of("a", 4_000L, "b", 4_000L),
          6_000L,
          Map.of("a", "a", "b", "b"),
          this::workloadsAt);

  /** Every Workload version written, as etcd keeps them; the watcher may not see them all. */
  private final List<Workload> etcd = new ArrayList<>();

  /** Each Workload's newest version at or before a resourceVersion, as an Exact list reads it. */
  private List<Workload> workloadsAt(long rv) {
    Map<String, Workload> then = new TreeMap<>();
    for (Workload wl : etcd) {
      if (Long.parseLong(wl.getMetadata().getResourceVersion()) <= rv) {
        then.put(wl.getMetadata().getName(), wl);
      }
    }
    return List.copyOf(then.values());
  }

  private long resourceVersion = 100;

  private Workload workload(
      String name, String job, String queue, String admittedTo, String cpu, boolean finished) {
    Workload wl = new Workload();
    wl.getMetadata().setName(name);
    wl.getMetadata().setUid("uid-" + name);
    wl.getMetadata().setResourceVersion(Long.toString(++resourceVersion));
    wl.getMetadata()
        .setOwnerReferences(
            List.of(new OwnerReference("batch/v1", true, true, "Job", job, "uid-" + job)));
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
    etcd.add(wl);
    return wl;
  }

  private Job running(String name) {
    return new JobBuilder()
        .withNewMetadata()
        .withName(name)
        .withUid("uid-" + name)
        .withResourceVersion(Long.toString(++resourceVersion))
        .endMetadata()
        .withNewSpec()
        .withSuspend(false)
        .endSpec()
        .build();
  }

  @Test
  void withinQuotaAndAdmittedBeforeRunningIsNoViolation() {
    watcher.onWorkload(Action.ADDED, workload("w1", "j1", "a", null, "0", false));
    watcher.onWorkload(Action.MODIFIED, workload("w1", "j1", "a", "a", "3", false));
    watcher.onJob(Action.MODIFIED, running("j1"));
    watcher.onWorkload(Action.MODIFIED, workload("w1", "j1", "a", "a", "3", true));
    watcher.onWorkload(Action.ADDED, workload("w2", "j2", "a", "a", "4", false));
    watcher.finish();

    assertThat(watcher.violations()).isEmpty();
    assertThat(watcher.admissions()).isEqualTo(2);
    assertThat(watcher.runningJobsChecked()).isEqualTo(1);
  }

  @Test
  void aClusterQueueOverNominalPlusBorrowingIsAViolation() {
    watcher.onWorkload(Action.ADDED, workload("w1", "j1", "a", "a", "3", false));
    watcher.onWorkload(Action.ADDED, workload("w2", "j2", "a", "a", "2", false));

    assertThat(watcher.violations())
        .singleElement()
        .asString()
        .contains("ClusterQueue a holds 5000m");
  }

  @Test
  void aCohortOverItsNominalQuotasIsAViolation() {
    watcher.onWorkload(Action.ADDED, workload("w1", "j1", "a", "a", "4", false));
    watcher.onWorkload(Action.ADDED, workload("w2", "j2", "b", "b", "3", false));

    assertThat(watcher.violations()).singleElement().asString().contains("the cohort holds 7000m");
  }

  @Test
  void twoWorkloadsOfOneJobHoldingQuotaIsAViolation() {
    watcher.onWorkload(Action.ADDED, workload("w1", "j1", "a", "a", "1", false));
    watcher.onWorkload(Action.ADDED, workload("w2", "j1", "b", "b", "1", false));

    assertThat(watcher.violations())
        .singleElement()
        .asString()
        .contains("Job uid-j1 has 2 Workloads holding quota");
  }

  @Test
  void anAdmissionReplacedWithoutAReleaseOrIntoAnotherQueueIsAViolation() {
    watcher.onWorkload(Action.ADDED, workload("w1", "j1", "a", "a", "1", false));
    watcher.onWorkload(Action.MODIFIED, workload("w1", "j1", "a", "b", "1", false));

    assertThat(watcher.violations())
        .anySatisfy(v -> assertThat(v).contains("w1 admitted again without a release"));
    assertThat(watcher.violations())
        .anySatisfy(v -> assertThat(v).contains("w1 of LocalQueue a admitted to b"));
  }

  @Test
  void aJobRunningBeforeItsWorkloadHoldsQuotaIsAViolation() {
    watcher.onWorkload(Action.ADDED, workload("w1", "j1", "a", null, "0", false));
    watcher.onJob(Action.MODIFIED, running("j1"));
    // Admitted after the Job was seen running: too late.
    watcher.onWorkload(Action.MODIFIED, workload("w1", "j1", "a", "a", "1", false));
    watcher.onJob(Action.MODIFIED, running("j2"));
    watcher.finish();

    assertThat(watcher.violations())
        .hasSize(2)
        .allSatisfy(v -> assertThat(v).contains("without a Workload holding quota"));
  }

  @Test
  void anAdmissionTheWatchMissedIsReadFromEtcdAndIsNoViolation() {
    watcher.onWorkload(Action.ADDED, workload("w1", "j1", "a", null, "0", false));
    // Admitted while the watcher's Workload watch was down: it lists again only after w1 ended.
    workload("w1", "j1", "a", "a", "1", false);
    watcher.onJob(Action.MODIFIED, running("j1"));
    watcher.onWorkload(Action.MODIFIED, workload("w1", "j1", "a", "a", "1", true));
    watcher.finish();

    assertThat(watcher.violations()).isEmpty();
    assertThat(watcher.runningJobsChecked()).isEqualTo(1);
  }

  @Test
  void aViolationSaysWhatEtcdHeldForTheJobsWorkloads() {
    watcher.onWorkload(Action.ADDED, workload("w1", "j1", "a", null, "0", false));
    watcher.onJob(Action.MODIFIED, running("j1"));
    watcher.finish();

    assertThat(watcher.violations())
        .singleElement()
        .asString()
        .contains("confirmed in etcd")
        .contains("w1 at resourceVersion 101: admission none");
  }
}
