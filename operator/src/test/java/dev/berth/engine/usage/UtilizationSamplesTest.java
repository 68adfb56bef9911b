package dev.berth.engine.usage;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.engine.usage.UtilizationSamples.Sample;
import java.math.BigDecimal;
import java.util.List;
import org.junit.jupiter.api.Test;

class UtilizationSamplesTest {
  private static final BigDecimal PERCENT = new BigDecimal("0.01");

  @Test
  void eachSampleHoldsForItsStepInsideTheRun() {
    // Two GPUs at 50 % for 3 s, then at 100 % for 2 s: 3 + 4 GPU-seconds.
    List<Sample> samples =
        List.of(
            new Sample(0, 100),
            new Sample(1000, 100),
            new Sample(2000, 100),
            new Sample(3000, 200),
            new Sample(4000, 200));

    assertThat(UtilizationSamples.deviceSeconds(samples, 0, 5000, 1000, PERCENT))
        .isEqualByComparingTo("7");
  }

  @Test
  void theRunsEdgesCutTheFirstAndLastStep() {
    List<Sample> samples = List.of(new Sample(0, 1), new Sample(1000, 1), new Sample(2000, 1));

    assertThat(UtilizationSamples.deviceSeconds(samples, 500, 2250, 1000, BigDecimal.ONE))
        .as("0.5 + 1 + 0.25 s of one busy GPU")
        .isEqualByComparingTo("1.75");
  }

  @Test
  void missingStepsAndNonsenseCountNothing() {
    List<Sample> samples =
        List.of(new Sample(0, Double.NaN), new Sample(1000, -5), new Sample(5000, 100));

    assertThat(UtilizationSamples.deviceSeconds(samples, 0, 6000, 1000, PERCENT))
        .isEqualByComparingTo("1");
  }

  @Test
  void longRunsGetACoarserStepUnderTenThousandPoints() {
    assertThat(UtilizationSamples.stepFor(0, 60_000)).isEqualTo(1000);
    long month = 31L * 24 * 3600 * 1000;
    long step = UtilizationSamples.stepFor(0, month);
    assertThat(month / step).isLessThan(11_000);
    assertThat(step % 1000).isZero();
  }
}
