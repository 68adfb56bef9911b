package dev.berth.operator.metrics;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One gauge name with a row per label set. Rows are created on first use and hold the last value
 * set; a value is a double kept in an AtomicLong's bits so the scrape thread reads it safely.
 */
final class GaugeTable {
  private final MeterRegistry registry;
  private final String name;
  private final String help;
  private final Map<Tags, AtomicLong> rows = new ConcurrentHashMap<>();

  GaugeTable(MeterRegistry registry, String name, String help) {
    this.registry = registry;
    this.name = name;
    this.help = help;
  }

  void set(Tags tags, double value) {
    rows.computeIfAbsent(
            tags,
            t -> {
              AtomicLong cell = new AtomicLong(Double.doubleToLongBits(0));
              Gauge.builder(name, cell, c -> Double.longBitsToDouble(c.get()))
                  .description(help)
                  .tags(t)
                  .register(registry);
              return cell;
            })
        .set(Double.doubleToLongBits(value));
  }

  /**
   * Sets exactly these rows: rows not among them are removed, so a domain or node that is gone
   * leaves no stale series behind.
   */
  void replaceAll(Map<Tags, Double> values) {
    for (Tags gone : new java.util.ArrayList<>(rows.keySet())) {
      if (!values.containsKey(gone)) {
        rows.remove(gone);
        registry.remove(
            new io.micrometer.core.instrument.Meter.Id(
                name, gone, null, help, io.micrometer.core.instrument.Meter.Type.GAUGE));
      }
    }
    values.forEach(this::set);
  }
}
