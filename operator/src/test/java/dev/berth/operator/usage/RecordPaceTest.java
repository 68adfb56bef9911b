package dev.berth.operator.usage;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Workload usage records take idle writers, and a floor of a few a second while none is idle. */
class RecordPaceTest {
  private static final long MS = 1_000_000L;

  @Test
  void idleWritersTakeOneRecordEach() {
    RecordPace pace = new RecordPace(5, 0);
    assertThat(pace.allowed(3, 0)).isEqualTo(3);
    assertThat(pace.allowed(8, 1 * MS)).isEqualTo(8);
  }

  @Test
  void whileEveryWriterIsBusyTheFloorLetsOneThroughPerInterval() {
    long start = 1_000 * MS;
    RecordPace pace = new RecordPace(5, start);
    assertThat(pace.allowed(0, start)).as("the first at once").isEqualTo(1);
    assertThat(pace.allowed(0, start + 10 * MS)).isZero();
    assertThat(pace.allowed(0, start + 199 * MS)).isZero();
    assertThat(pace.allowed(0, start + 200 * MS)).as("200 ms later: 5 a second").isEqualTo(1);
    assertThat(pace.allowed(0, start + 250 * MS)).isZero();
    int sent = 0;
    for (long t = start + 250 * MS; t < start + 1_250 * MS; t += 10 * MS) {
      sent += pace.allowed(0, t);
    }
    assertThat(sent).as("a second of busy cycles every 10 ms").isEqualTo(5);
  }

  @Test
  void idleWritersDoNotSpendTheFloor() {
    RecordPace pace = new RecordPace(5, 0);
    assertThat(pace.allowed(2, 0)).isEqualTo(2);
    assertThat(pace.allowed(0, 1 * MS)).as("the floor still due").isEqualTo(1);
  }
}
