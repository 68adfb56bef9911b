package dev.berth.operator.admission;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.api.v1beta1.LocalQueue;
import dev.berth.api.v1beta1.LocalQueueSpec;
import dev.berth.api.v1beta1.Workload;
import dev.berth.webhook.validation.BerthValidators;
import dev.berth.webhook.validation.FieldError;
import io.fabric8.kubernetes.api.model.HasMetadata;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Bootstrap's feeding: checked like the reconcilers check, one bad object never fails it. */
class BootstrapTest {

  private static LocalQueue localQueue(String name, String clusterQueue) {
    LocalQueue lq = new LocalQueue();
    lq.getMetadata().setName(name);
    lq.getMetadata().setNamespace("team");
    lq.setSpec(new LocalQueueSpec(clusterQueue));
    return lq;
  }

  @Test
  void anInvalidObjectIsReportedAndSkippedAndOneThatFailsDoesNotStopTheRest() {
    List<String> reported = new ArrayList<>();
    Bootstrap bootstrap =
        new Bootstrap(
            null,
            (HasMetadata o, List<FieldError> errors) -> {
              errors.forEach(e -> reported.add(o.getMetadata().getName() + " " + e.path()));
              return errors.isEmpty();
            });
    List<String> fed = new ArrayList<>();
    bootstrap.feed(
        List.of(
            localQueue("invalid", "Not_A_Name!"),
            localQueue("throws", "cq"),
            localQueue("fine", "cq")),
        BerthValidators::localQueue,
        lq -> {
          if (lq.getMetadata().getName().equals("throws")) {
            throw new IllegalStateException("cannot translate");
          }
          fed.add(lq.getMetadata().getName());
        });
    assertThat(fed).containsExactly("fine");
    assertThat(reported).containsExactly("invalid spec.clusterQueue");
  }

  @Test
  void nothingIsFedBeforeEveryInformerHasSynced() throws InterruptedException {
    var caches = new dev.berth.operator.informers.InformerCaches();
    Bootstrap bootstrap = new Bootstrap(caches, (o, errors) -> true);
    assertThat(bootstrap.awaitSynced(java.time.Duration.ofMillis(10))).isFalse();
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> bootstrap.load(null))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("not synced");
    caches.markSynced();
    assertThat(bootstrap.awaitSynced(java.time.Duration.ofMillis(10))).isTrue();
  }

  @Test
  void admittedWorkloadsComeFirstOldestAdmissionFirst() {
    Workload pending = workload("pending", null);
    Workload late = workload("late", "2026-01-01T02:00:00Z");
    Workload early = workload("early", "2026-01-01T01:00:00Z");
    assertThat(Bootstrap.admittedFirst(List.of(pending, late, early)))
        .extracting(w -> w.getMetadata().getName())
        .containsExactly("early", "late", "pending");
  }

  private static Workload workload(String name, String admittedAt) {
    Workload wl = new Workload();
    wl.getMetadata().setName(name);
    wl.setStatus(new dev.berth.api.v1beta1.WorkloadStatus());
    wl.getStatus().conditions = new ArrayList<>();
    if (admittedAt != null) {
      wl.getStatus().admission = new dev.berth.api.v1beta1.Admission();
      wl.getStatus().admission.clusterQueue = "cq";
      var c = new dev.berth.api.v1beta1.Condition("QuotaReserved", "True", "QuotaReserved", "ok");
      c.lastTransitionTime = admittedAt;
      wl.getStatus().conditions.add(c);
    }
    return wl;
  }
}
