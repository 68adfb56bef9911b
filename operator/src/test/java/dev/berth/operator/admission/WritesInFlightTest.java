package dev.berth.operator.admission;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.api.v1beta1.Workload;
import dev.berth.testing.Workloads;
import org.junit.jupiter.api.Test;

/**
 * The write ordering alone: while one of the loop's writes to a Workload is on the wire, its watch
 * events and its deletion wait, the newest event only, and are handed back once the write is.
 */
class WritesInFlightTest {
  private final WritesInFlight inFlight = new WritesInFlight();

  private static Workload version(String rv) {
    return Workloads.named("train").in("team").uid("train").resourceVersion(rv).build();
  }

  @Test
  void withoutAWriteOnTheWireNothingIsHeld() {
    assertThat(inFlight.hold(version("5"))).isFalse();
    assertThat(inFlight.holdDeletion("train")).isFalse();
    assertThat(inFlight.finished("train")).isEqualTo(new WritesInFlight.Held(null, false));
  }

  @Test
  void theNewestEventIsHeldUntilTheWriteIsBack() {
    inFlight.started("train");
    Workload newer = version("7");
    assertThat(inFlight.hold(version("6"))).isTrue();
    assertThat(inFlight.hold(newer)).isTrue();
    assertThat(inFlight.hold(version("5"))).as("older: held, and dropped").isTrue();

    assertThat(inFlight.finished("train")).isEqualTo(new WritesInFlight.Held(newer, false));
    assertThat(inFlight.hold(version("8"))).as("the write is back").isFalse();
    assertThat(inFlight.finished("train")).isEqualTo(new WritesInFlight.Held(null, false));
  }

  @Test
  void aDeletionWhileWritingIsHandedBackWithTheWrite() {
    inFlight.started("train");
    assertThat(inFlight.holdDeletion("train")).isTrue();
    assertThat(inFlight.holdDeletion("other")).as("another key").isFalse();

    assertThat(inFlight.finished("train")).isEqualTo(new WritesInFlight.Held(null, true));
  }
}
