package dev.berth.webhook.validation;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.api.v1beta1.Budget;
import dev.berth.api.v1beta1.BudgetLimit;
import dev.berth.api.v1beta1.BudgetPeriod;
import dev.berth.api.v1beta1.BudgetSpec;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Budget objects: each refusal names its field. */
class BudgetRulesTest {
  private static Budget budget() {
    Budget b = new Budget();
    b.getMetadata().setName("llm-gpu");
    BudgetSpec spec = new BudgetSpec();
    spec.clusterQueue = "llm";
    spec.period = BudgetPeriod.Month;
    spec.timeZone = "Europe/Berlin";
    spec.limits = List.of(new BudgetLimit("nvidia.com/gpu", "20000"));
    b.setSpec(spec);
    return b;
  }

  private static List<String> paths(Budget b) {
    return BerthValidators.budget(b).stream().map(FieldError::path).toList();
  }

  @Test
  void aWholeBudgetPasses() {
    assertThat(BerthValidators.budget(budget())).isEmpty();
    Budget lq = budget();
    lq.getSpec().clusterQueue = null;
    lq.getSpec().localQueue = new BudgetSpec.LocalQueueReference();
    lq.getSpec().localQueue.namespace = "team-llm";
    lq.getSpec().localQueue.name = "train";
    lq.getSpec().limits =
        List.of(new BudgetLimit("nvidia.com/gpu", "0.5"), new BudgetLimit("cpu", "0"));
    assertThat(BerthValidators.budget(lq)).isEmpty();
  }

  @Test
  void exactlyOneTargetIsNamed() {
    Budget none = budget();
    none.getSpec().clusterQueue = null;
    assertThat(paths(none)).containsExactly("spec");
    Budget two = budget();
    two.getSpec().costCentre = "cc-1";
    assertThat(paths(two)).containsExactly("spec");
    assertThat(BerthValidators.budget(two).get(0).message()).contains("exactly one of");
  }

  @Test
  void theTimeZoneIsAnIanaZone() {
    Budget b = budget();
    b.getSpec().timeZone = "Mars/Olympus_Mons";
    assertThat(paths(b)).containsExactly("spec.timeZone");
    b.getSpec().timeZone = null;
    assertThat(paths(b)).containsExactly("spec.timeZone");
    b.getSpec().timeZone = "UTC";
    assertThat(paths(b)).isEmpty();
  }

  @Test
  void limitsAreDistinctResourcesWithDecimalHours() {
    Budget b = budget();
    b.getSpec().limits =
        List.of(
            new BudgetLimit("nvidia.com/gpu", "-3"),
            new BudgetLimit("bad name", "1"),
            new BudgetLimit("nvidia.com/gpu", "1e3"));
    assertThat(paths(b))
        .containsExactly(
            "spec.limits[0].hours",
            "spec.limits[1].resource",
            "spec.limits[2].resource",
            "spec.limits[2].hours");
    b.getSpec().limits = List.of();
    assertThat(paths(b)).containsExactly("spec.limits");
  }

  @Test
  void theTargetsNamesAreWellFormed() {
    Budget b = budget();
    b.getSpec().clusterQueue = null;
    b.getSpec().localQueue = new BudgetSpec.LocalQueueReference();
    b.getSpec().localQueue.name = "Train_1";
    assertThat(paths(b)).containsExactly("spec.localQueue.namespace", "spec.localQueue.name");
    Budget cc = budget();
    cc.getSpec().clusterQueue = null;
    cc.getSpec().costCentre = "has space";
    assertThat(paths(cc)).containsExactly("spec.costCentre");
  }

  @Test
  void thePeriodIsRequired() {
    Budget b = budget();
    b.getSpec().period = null;
    assertThat(paths(b)).containsExactly("spec.period");
  }
}
