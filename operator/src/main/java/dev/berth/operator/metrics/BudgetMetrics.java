package dev.berth.operator.metrics;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * Each Budget's current window, per limited resource, in resource-hours:
 *
 * <ul>
 *   <li>{@code berth_budget_used{budget,resource,window}}: ended runs and running workloads' time
 *       so far in the window;
 *   <li>{@code berth_budget_limit{budget,resource,window}}: the budget's hours.
 * </ul>
 *
 * Series of a deleted budget, a resource no longer limited, or a past window disappear.
 */
public final class BudgetMetrics {
  private final MeterRegistry registry;
  private final Map<Tags, double[]> used = new HashMap<>();
  private final Map<Tags, double[]> limit = new HashMap<>();
  private Set<Tags> shown = new HashSet<>();

  public BudgetMetrics(MeterRegistry registry) {
    this.registry = registry;
  }

  /** One series' figures, in the order of the evaluation. */
  public record Row(String budget, String resource, String window, double used, double limit) {}

  /** The rows of one evaluation: every budget and resource; others are removed. */
  public void show(Iterable<Row> rows) {
    Set<Tags> now = new HashSet<>();
    for (Row r : rows) {
      Tags tags = Tags.of("budget", r.budget(), "resource", r.resource(), "window", r.window());
      now.add(tags);
      set(used, "berth_budget_used", "Resource-hours a budget used in its window", tags, r.used());
      set(
          limit,
          "berth_budget_limit",
          "Resource-hours a budget allows per window",
          tags,
          r.limit());
    }
    for (Tags gone : shown) {
      if (!now.contains(gone)) {
        remove(used, "berth_budget_used", gone);
        remove(limit, "berth_budget_limit", gone);
      }
    }
    shown = now;
  }

  private void set(Map<Tags, double[]> values, String name, String help, Tags tags, double v) {
    double[] holder =
        values.computeIfAbsent(
            tags,
            t -> {
              double[] h = new double[1];
              Gauge.builder(name, h, x -> x[0]).description(help).tags(t).register(registry);
              return h;
            });
    holder[0] = v;
  }

  private void remove(Map<Tags, double[]> values, String name, Tags tags) {
    values.remove(tags);
    Gauge g = registry.find(name).tags(tags).gauge();
    if (g != null) {
      registry.remove(g);
    }
  }
}
