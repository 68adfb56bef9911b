package dev.berth.engine.queue;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.engine.model.AdmissionFairSharing;
import java.math.BigDecimal;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The decay, entry penalty and score of admission fair sharing, with exact figures. */
class DecayedUsageTest {
  private static final long HOUR = 3_600_000L;

  private static Map<String, BigDecimal> usage(String resource, String value) {
    return Map.of(resource, new BigDecimal(value));
  }

  @Test
  void oneHalfLifeWeighsOldAndNewUsageEqually() {
    assertThat(DecayedUsage.alpha(HOUR, HOUR)).isEqualByComparingTo("0.5");
    assertThat(DecayedUsage.alpha(2 * HOUR, HOUR)).isEqualByComparingTo("0.75");
    assertThat(DecayedUsage.alpha(0, HOUR)).isEqualByComparingTo("0");
    // 4 cores of history, 2 running now, one half-life later: 4 × 0.5 + 2 × 0.5.
    assertThat(DecayedUsage.decay(usage("cpu", "4"), usage("cpu", "2"), HOUR, HOUR).get("cpu"))
        .isEqualByComparingTo("3");
    // Nothing running for two half-lives: a quarter is left.
    assertThat(DecayedUsage.decay(usage("cpu", "4"), Map.of(), 2 * HOUR, HOUR).get("cpu"))
        .isEqualByComparingTo("1");
  }

  @Test
  void aGpusShareOfAShortIntervalIsKeptToNineDecimals() {
    // 8 GPUs for 5 minutes with a week's half-life: 8 × (1 − 0.5^(5/10080)), rounded down.
    Map<String, BigDecimal> after =
        DecayedUsage.decay(Map.of(), usage("nvidia.com/gpu", "8"), 5 * 60_000L, 168 * HOUR);
    assertThat(after.get("nvidia.com/gpu")).isEqualByComparingTo("0.002750111");
  }

  @Test
  void withoutAHalfLifeNothingIsRemembered() {
    assertThat(DecayedUsage.decay(usage("cpu", "4"), usage("cpu", "2"), HOUR, 0)).isEmpty();
    assertThat(DecayedUsage.alpha(HOUR, 0)).isEqualByComparingTo("0");
  }

  @Test
  void usageThatDecaysToNothingIsLeftOut() {
    assertThat(DecayedUsage.decay(usage("cpu", "0.000000001"), Map.of(), HOUR, HOUR)).isEmpty();
  }

  @Test
  void theEntryPenaltyIsOneSamplingIntervalOfTheRequests() {
    AdmissionFairSharing s = new AdmissionFairSharing(HOUR, HOUR, Map.of());
    assertThat(DecayedUsage.entryPenalty(usage("cpu", "3"), s).get("cpu"))
        .isEqualByComparingTo("1.5");
    AdmissionFairSharing noHistory = new AdmissionFairSharing(0, HOUR, Map.of());
    assertThat(DecayedUsage.entryPenalty(usage("cpu", "3"), noHistory)).isEmpty();
  }

  @Test
  void theScoreWeighsResourcesThenDividesByTheLocalQueuesWeight() {
    AdmissionFairSharing s =
        new AdmissionFairSharing(HOUR, HOUR, Map.of("cpu", 2.0, "memory", 0.0));
    Map<String, BigDecimal> used =
        Map.of(
            "cpu", new BigDecimal("3"),
            "memory", new BigDecimal("1073741824"),
            "nvidia.com/gpu", new BigDecimal("1"));
    // 2 × 3 + 0 × 1Gi + 1 × 1 = 7; weight 2 (2000 thousandths) halves it.
    assertThat(DecayedUsage.score(used, s, 1000)).isEqualTo(7.0);
    assertThat(DecayedUsage.score(used, s, 2000)).isEqualTo(3.5);
    assertThat(DecayedUsage.score(used, s, 0)).isEqualTo(Double.POSITIVE_INFINITY);
    assertThat(DecayedUsage.score(Map.of(), s, 0)).isEqualTo(Double.POSITIVE_INFINITY);
  }

  @Test
  void canonicalUnitsBecomeBaseUnits() {
    assertThat(DecayedUsage.baseUnits("cpu", 1500)).isEqualByComparingTo("1.5");
    assertThat(DecayedUsage.baseUnits("memory", 1024)).isEqualByComparingTo("1024");
  }
}
