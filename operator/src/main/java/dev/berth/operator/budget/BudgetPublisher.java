package dev.berth.operator.budget;

import dev.berth.api.v1beta1.UsageReportStatus;
import dev.berth.engine.model.SpentBudgets;
import dev.berth.engine.usage.UsageOwner;
import dev.berth.engine.usage.UsageTotals;
import dev.berth.operator.admission.AdmissionLoop;
import dev.berth.operator.admission.ClusterState;
import dev.berth.operator.metrics.BudgetMetrics;
import dev.berth.operator.usage.UsageObserver;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * After cycles, on the loop thread, at most once per {@link #EVERY} (at once when a Budget or a run
 * changed): evaluates every budget at the budget clock's time with the runs holding quota now,
 * gives the spent ones to the engine (as an observation, so the next cycle holds or releases their
 * queues), shows them as metrics and hands their status to the {@link BudgetStatusWriter}. While
 * any Budget exists it asks for a cycle every {@link #EVERY}, so running workloads' time is charged
 * and a new window is noticed without an event.
 */
public final class BudgetPublisher implements Consumer<AdmissionLoop.CycleOutcome>, AutoCloseable {
  static final Duration EVERY = Duration.ofSeconds(1);

  /**
   * A change (a Budget, an ended run) is evaluated at most this often: on a cluster where runs end
   * every few milliseconds, once per cycle would walk every open run each time.
   */
  static final Duration AFTER_CHANGE = Duration.ofMillis(200);

  private final BudgetBook book;
  private final UsageObserver usage;
  private final AdmissionLoop loop;
  private final Clock clock;
  private final BudgetMetrics metrics;
  private final BudgetStatusWriter writer;
  private SpentBudgets spent = SpentBudgets.NONE;

  /** The last evaluation as the dashboard shows it; read off the loop thread. */
  private volatile List<Map<String, Object>> shown = List.of();

  /** The last evaluation, for the UsageReports; read off the loop thread (the recorder's). */
  private volatile List<BudgetState> latest = List.of();

  private long lastNanos;
  private long pokeDueNanos;
  private boolean changed;

  public BudgetPublisher(
      KubernetesClient client,
      BudgetBook book,
      UsageObserver usage,
      AdmissionLoop loop,
      Clock clock,
      BudgetMetrics metrics) {
    this.book = book;
    this.usage = usage;
    this.loop = loop;
    this.clock = clock;
    this.metrics = metrics;
    this.writer = new BudgetStatusWriter(client, clock);
    this.pokeDueNanos = System.nanoTime();
    this.lastNanos = pokeDueNanos - EVERY.toNanos();
  }

  @Override
  public void accept(AdmissionLoop.CycleOutcome outcome) {
    long nanos = System.nanoTime();
    changed |= book.takeChanged();
    long since = nanos - lastNanos;
    boolean due =
        changed ? since >= AFTER_CHANGE.toNanos() : !book.isEmpty() && since >= EVERY.toNanos();
    if (!due) {
      pokeLater(nanos);
      return;
    }
    evaluate(nanos, now -> loop.submit(state -> state.budgets(now)));
    pokeLater(nanos);
  }

  /**
   * Evaluates now and puts the spent budgets in force at once: from an observation (a Budget
   * changed, the bootstrap), so that the next cycle already decides with them.
   */
  public void evaluateNow(ClusterState state) {
    book.takeChanged();
    evaluate(System.nanoTime(), state::budgets);
  }

  private void evaluate(long nanos, Consumer<SpentBudgets> apply) {
    changed = false;
    lastNanos = nanos;
    BudgetBook.Evaluation evaluation = book.evaluate(clock.instant(), usage.openRuns());
    if (!evaluation.spent().equals(spent)) {
      spent = evaluation.spent();
      apply.accept(spent);
    }
    List<BudgetMetrics.Row> rows = new ArrayList<>();
    for (BudgetState s : evaluation.states()) {
      for (var e : s.limitHours().entrySet()) {
        rows.add(
            new BudgetMetrics.Row(
                s.name(),
                e.getKey(),
                s.span().label(),
                s.usedHours().get(e.getKey()).doubleValue(),
                e.getValue().doubleValue()));
      }
      writer.offer(s, book.budget(s.name()), nanos);
    }
    metrics.show(rows);
    shown = dashboardRows(evaluation.states());
    latest = List.copyOf(evaluation.states());
  }

  /**
   * The budgets that charge runs of these owners, as the last evaluation has them (the figures each
   * Budget's status is written with), for a UsageReport whose entries they are.
   */
  public List<UsageReportStatus.BudgetUse> charging(Collection<UsageOwner> owners) {
    return uses(latest, owners);
  }

  static List<UsageReportStatus.BudgetUse> uses(
      List<BudgetState> states, Collection<UsageOwner> owners) {
    List<UsageReportStatus.BudgetUse> out = new ArrayList<>();
    for (BudgetState s : states) {
      if (owners.stream().noneMatch(s.target()::charges)) {
        continue;
      }
      UsageReportStatus.BudgetUse use = new UsageReportStatus.BudgetUse();
      use.name = s.name();
      use.target = s.target().toString();
      use.status = BudgetStatusWriter.status(s);
      // The Budget's own record of charged runs; a report has its own.
      use.status.counted = null;
      out.add(use);
    }
    return out;
  }

  /** Each budget's window, hours used and allowed per resource, for the dashboard. */
  public List<Map<String, Object>> shown() {
    return shown;
  }

  private static List<Map<String, Object>> dashboardRows(List<BudgetState> states) {
    List<Map<String, Object>> out = new ArrayList<>();
    for (BudgetState s : states) {
      Map<String, Object> row = new LinkedHashMap<>();
      row.put("name", s.name());
      row.put("target", s.target().toString());
      row.put("window", s.span().label());
      row.put("resetsAt", s.span().end().toString());
      row.put("exhausted", s.exhausted());
      row.put("message", s.message());
      List<Map<String, Object>> resources = new ArrayList<>();
      s.limitHours()
          .forEach(
              (resource, limit) -> {
                Map<String, Object> r = new LinkedHashMap<>();
                r.put("resource", resource);
                r.put("usedHours", UsageTotals.text(s.usedHours().get(resource)));
                r.put("limitHours", UsageTotals.text(limit));
                resources.add(r);
              });
      row.put("resources", resources);
      out.add(Collections.unmodifiableMap(row));
    }
    return List.copyOf(out);
  }

  /** A deleted Budget's status is not written again. */
  public void deleted(String name) {
    writer.forget(name);
  }

  private void pokeLater(long nanos) {
    if ((changed || !book.isEmpty()) && nanos - pokeDueNanos >= 0) {
      pokeDueNanos = nanos + EVERY.toNanos();
      loop.pokeAfter(EVERY);
    }
  }

  @Override
  public void close() {
    writer.close();
  }
}
