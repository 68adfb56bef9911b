package dev.berth.testing;

import dev.berth.api.v1beta1.Budget;
import dev.berth.api.v1beta1.BudgetLimit;
import dev.berth.api.v1beta1.BudgetPeriod;
import dev.berth.api.v1beta1.BudgetSpec;
import java.util.ArrayList;

/**
 * A Budget: {@code Budgets.named("llm-gpu").localQueue("team-llm", "train").monthly("UTC")
 * .hours("nvidia.com/gpu", "20000")}.
 */
public final class Budgets {
  private final Budget budget = new Budget();

  private Budgets(String name) {
    budget.getMetadata().setName(name);
    budget.setSpec(new BudgetSpec());
    budget.getSpec().limits = new ArrayList<>();
  }

  public static Budgets named(String name) {
    return new Budgets(name);
  }

  public Budgets localQueue(String namespace, String name) {
    budget.getSpec().localQueue = new BudgetSpec.LocalQueueReference();
    budget.getSpec().localQueue.namespace = namespace;
    budget.getSpec().localQueue.name = name;
    return this;
  }

  public Budgets clusterQueue(String name) {
    budget.getSpec().clusterQueue = name;
    return this;
  }

  public Budgets costCentre(String name) {
    budget.getSpec().costCentre = name;
    return this;
  }

  /** Calendar months in {@code timeZone}. */
  public Budgets monthly(String timeZone) {
    return period(BudgetPeriod.Month, timeZone);
  }

  public Budgets period(BudgetPeriod period, String timeZone) {
    budget.getSpec().period = period;
    budget.getSpec().timeZone = timeZone;
    return this;
  }

  /** {@code hours} of {@code resource} per window. */
  public Budgets hours(String resource, String hours) {
    budget.getSpec().limits.add(new BudgetLimit(resource, hours));
    return this;
  }

  public Budget build() {
    return budget;
  }
}
