package dev.berth.engine;

import static dev.berth.engine.Builders.clusterQueue;
import static dev.berth.engine.Builders.flavor;
import static dev.berth.engine.Builders.localQueue;
import static dev.berth.engine.Builders.workload;
import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.engine.model.PendingReason;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The sweep over every pending workload ({@link StatusView#pendingStatuses}) says what asking for
 * each workload alone says, while working out one explanation per bucket.
 */
class PendingSweepTest {

  private static AdmissionEngine engine() {
    AdmissionEngine e = new AdmissionEngine();
    e.upsertResourceFlavor(flavor("default").build());
    e.upsertNamespace("default", Map.of());
    // A StrictFIFO queue whose head does not fit: everyone behind it waits "behind" it.
    e.upsertClusterQueue(
        clusterQueue("strict").strictFifo().flavor("default").res("cpu", "4").build());
    e.upsertLocalQueue(localQueue("ls", "strict"));
    e.upsertWorkload(workload("huge").queue("ls").podSet("main", 1, "cpu", "3").build());
    e.upsertWorkload(
        workload("blocker").queue("ls").created(1).podSet("main", 1, "cpu", "2").build());
    for (int i = 0; i < 5; i++) {
      e.upsertWorkload(
          workload("s" + i).queue("ls").created(2 + i).podSet("main", 1, "cpu", "1").build());
    }
    // A BestEffortFIFO queue that is full: two buckets of different shapes wait for quota.
    e.upsertClusterQueue(clusterQueue("best").flavor("default").res("cpu", "2").build());
    e.upsertLocalQueue(localQueue("lb", "best"));
    e.upsertWorkload(
        workload("fill").queue("lb").priority(10).podSet("main", 1, "cpu", "2").build());
    for (int i = 0; i < 4; i++) {
      e.upsertWorkload(
          workload("b" + i).queue("lb").created(10 + i).podSet("main", 1, "cpu", "1").build());
      e.upsertWorkload(
          workload("g" + i)
              .queue("lb")
              .created(10 + i)
              .priority(5)
              .podSet("main", 1, "cpu", "2")
              .build());
    }
    // A workload whose LocalQueue does not exist.
    e.upsertWorkload(workload("lost").queue("nowhere").podSet("main", 1, "cpu", "1").build());
    for (int i = 1; i <= 3; i++) {
      e.runCycle(i);
    }
    return e;
  }

  @Test
  void theSweepSaysWhatEachWorkloadAloneSays() {
    AdmissionEngine e = engine();
    List<PendingStatus> swept = e.status().pendingStatuses();
    assertThat(swept).hasSize(e.status().pendingStatuses().size());
    Map<String, PendingStatus> byUid = new HashMap<>();
    for (PendingStatus s : swept) {
      byUid.put(s.workloadUid(), s);
      assertThat(s).as(s.workloadUid()).isEqualTo(e.status().pendingStatus(s.workloadUid()));
    }
    assertThat(byUid).containsKeys("blocker", "s0", "s4", "b0", "g3", "lost");
    assertThat(byUid).doesNotContainKeys("huge", "fill");
    assertThat(byUid.get("lost").reason()).isEqualTo(PendingReason.Inadmissible);
    assertThat(byUid.get("lost").message()).isEqualTo("LocalQueue default/nowhere doesn't exist");
    assertThat(byUid.get("s3").message())
        .isEqualTo("waiting behind blocker, the head of StrictFIFO ClusterQueue strict");
  }

  @Test
  void workloadsOfOneBucketShareOneExplanation() {
    List<PendingStatus> swept = engine().status().pendingStatuses();
    Map<String, PendingStatus> byUid = new HashMap<>();
    swept.forEach(s -> byUid.put(s.workloadUid(), s));
    // Same text object, not merely equal text: formatted once for the bucket.
    assertThat(byUid.get("s1").message()).isSameAs(byUid.get("s4").message());
    assertThat(byUid.get("s1").summary()).isSameAs(byUid.get("s4").summary());
    assertThat(byUid.get("b1").message()).isSameAs(byUid.get("b3").message());
  }
}
