package dev.berth.operator.budget;

import dev.berth.api.v1beta1.Budget;
import dev.berth.api.v1beta1.BudgetLimit;
import dev.berth.api.v1beta1.BudgetSpec;
import dev.berth.api.v1beta1.BudgetStatus;
import dev.berth.api.v1beta1.Workload;
import dev.berth.engine.model.SpentBudgets;
import dev.berth.engine.usage.Run;
import dev.berth.engine.usage.UsageOwner;
import dev.berth.engine.usage.UsageRequest;
import dev.berth.engine.usage.UsageTotals;
import dev.berth.operator.Timestamps;
import dev.berth.operator.admission.ClusterObserver;
import dev.berth.operator.admission.WorkloadPhase;
import dev.berth.operator.usage.UsageTranslator;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Every Budget's account of its current window, fed on the loop thread: the Budget objects, the
 * ended runs of the usage ledger, and each Workload's own usage record (the run it last counted),
 * which gives back a run that ended while no operator was charging it. {@link #evaluate} adds the
 * running workloads' time so far and says which budgets are spent.
 */
public final class BudgetBook implements ClusterObserver {
  private static final BigDecimal SECONDS_PER_HOUR = BigDecimal.valueOf(3600);

  private final Map<String, Budget> budgets = new TreeMap<>();
  private final Map<String, BudgetAccount> accounts = new HashMap<>();

  /** Ended runs seen before their budget's object: charged when it arrives. */
  private final Map<String, Run> recentEnded = new LinkedHashMap<>();

  private static final int RECENT_ENDED = 10_000;

  /** A Budget or a charge changed since {@link #takeChanged()}. */
  private boolean changed;

  /** A Budget as stored (already validated). */
  public void upsert(Budget budget, Instant now) {
    String name = budget.getMetadata().getName();
    Budget before = budgets.put(name, budget);
    BudgetSpec spec = budget.getSpec();
    changed = true;
    if (before != null && java.util.Objects.equals(json(before.getSpec()), json(spec))) {
      return;
    }
    BudgetWindow window = new BudgetWindow(spec.period, ZoneId.of(spec.timeZone));
    BudgetAccount account =
        new BudgetAccount(target(spec), limitSeconds(spec.limits), window, window.at(now));
    BudgetAccount old = accounts.put(name, account);
    if (old != null && old.target.equals(account.target) && old.window.equals(window)) {
      account.restore(old.endedSeconds(), old.countedRuns());
    } else if (old == null) {
      restore(account, budget.getStatus());
    }
    for (Run run : recentEnded.values()) {
      account.charge(run);
    }
  }

  public void delete(String name) {
    changed = true;
    budgets.remove(name);
    accounts.remove(name);
  }

  public Budget budget(String name) {
    return budgets.get(name);
  }

  /** A run the usage ledger ended. */
  public void ended(Run run) {
    remember(run);
    for (BudgetAccount account : accounts.values()) {
      changed |= account.charge(run);
    }
  }

  /** A Workload's own record of its last ended run (status.usage), charged if not yet. */
  @Override
  public void workload(Workload wl, WorkloadPhase phase) {
    if (wl.getStatus() == null || wl.getStatus().usage == null) {
      return;
    }
    UsageTotals totals = UsageTranslator.totals(wl.getStatus().usage);
    if (totals.lastRunStart() == null || totals.lastRunEnd() == null || totals.owner() == null) {
      return;
    }
    List<UsageRequest> requests = new ArrayList<>();
    totals
        .requested()
        .forEach(
            (k, amount) ->
                requests.add(new UsageRequest(k.podSet(), k.flavor(), k.resource(), amount)));
    UsageOwner owner =
        new UsageOwner(
            wl.getMetadata().getNamespace(),
            wl.getSpec() == null || wl.getSpec().queueName == null ? "" : wl.getSpec().queueName,
            totals.owner().clusterQueue(),
            totals.owner().costCentre());
    Run run =
        new Run(
            wl.getMetadata().getUid(),
            wl.getMetadata().getNamespace() + "/" + wl.getMetadata().getName(),
            owner,
            totals.lastRunStart(),
            totals.lastRunEnd(),
            requests);
    remember(run);
    for (BudgetAccount account : accounts.values()) {
      changed |= account.charge(run);
    }
  }

  /** The last ended run of each of the most recent workloads, for budgets observed after it. */
  private void remember(Run run) {
    Run known = recentEnded.remove(run.uid());
    recentEnded.put(run.uid(), known != null && known.start() > run.start() ? known : run);
    if (recentEnded.size() > RECENT_ENDED) {
      recentEnded.remove(recentEnded.keySet().iterator().next());
    }
  }

  /** The result of one evaluation: every budget's state, and the spent ones for the engine. */
  public record Evaluation(List<BudgetState> states, SpentBudgets spent) {}

  /** Each budget at {@code now}, with {@code open} the runs holding quota now. */
  public Evaluation evaluate(Instant now, Collection<Run> open) {
    List<BudgetState> states = new ArrayList<>();
    Map<String, String> lqs = new HashMap<>();
    Map<String, String> cqs = new HashMap<>();
    Map<String, String> ccs = new HashMap<>();
    java.util.Set<String> onIdleCapacity = new java.util.HashSet<>();
    for (Map.Entry<String, BudgetAccount> e : new TreeMap<>(accounts).entrySet()) {
      BudgetAccount account = e.getValue();
      account.roll(now);
      Map<String, BigDecimal> used = account.used(open, now);
      Map<String, BigDecimal> usedHours = new LinkedHashMap<>();
      Map<String, BigDecimal> limitHours = new LinkedHashMap<>();
      String message = null;
      for (Map.Entry<String, BigDecimal> limit : account.limits.entrySet()) {
        BigDecimal u = hours(used.getOrDefault(limit.getKey(), BigDecimal.ZERO));
        BigDecimal l = hours(limit.getValue());
        usedHours.put(limit.getKey(), u);
        limitHours.put(limit.getKey(), l);
        if (message == null
            && used.getOrDefault(limit.getKey(), BigDecimal.ZERO).compareTo(limit.getValue())
                >= 0) {
          message =
              BudgetMessages.exhausted(
                  e.getKey(), account.target, limit.getKey(), u, l, account.span());
        }
      }
      boolean exhausted = message != null;
      if (exhausted) {
        Map<String, String> into =
            switch (account.target.kind()) {
              case LocalQueue -> lqs;
              case ClusterQueue -> cqs;
              case CostCentre -> ccs;
            };
        boolean idle = runsOnIdleCapacity(budgets.get(e.getKey()));
        if (idle) {
          onIdleCapacity.add(message);
        }
        // Two spent budgets of one queue: the first by name is told, unless it lets its workloads
        // run on idle capacity and a later one makes them wait.
        into.merge(
            account.target.name(),
            message,
            (first, later) -> onIdleCapacity.contains(first) && !idle ? later : first);
      }
      states.add(
          new BudgetState(
              e.getKey(),
              account.target,
              account.span(),
              usedHours,
              limitHours,
              exhausted,
              exhausted ? message : BudgetMessages.left(usedHours, limitHours, account.span()),
              account.endedSeconds(),
              account.countedRuns()));
    }
    return new Evaluation(states, new SpentBudgets(lqs, cqs, ccs, onIdleCapacity));
  }

  /** Whether the admin lets the budget's workloads run on idle capacity once it is spent. */
  static boolean runsOnIdleCapacity(Budget budget) {
    return budget != null
        && budget.getSpec() != null
        && budget.getSpec().whenExhausted
            == dev.berth.api.v1beta1.BudgetWhenExhausted.RunOnIdleCapacity;
  }

  public boolean takeChanged() {
    boolean was = changed;
    changed = false;
    return was;
  }

  public boolean isEmpty() {
    return accounts.isEmpty();
  }

  static BudgetTarget target(BudgetSpec spec) {
    if (spec.localQueue != null) {
      return new BudgetTarget(
          BudgetTarget.Kind.LocalQueue, spec.localQueue.namespace + "/" + spec.localQueue.name);
    }
    if (spec.clusterQueue != null) {
      return new BudgetTarget(BudgetTarget.Kind.ClusterQueue, spec.clusterQueue);
    }
    return new BudgetTarget(BudgetTarget.Kind.CostCentre, spec.costCentre);
  }

  private static Map<String, BigDecimal> limitSeconds(List<BudgetLimit> limits) {
    Map<String, BigDecimal> out = new LinkedHashMap<>();
    for (BudgetLimit l : limits) {
      out.put(l.resource, new BigDecimal(l.hours).multiply(SECONDS_PER_HOUR));
    }
    return out;
  }

  /** The window's durable record from a status written for the same window. */
  private static void restore(BudgetAccount account, BudgetStatus status) {
    if (status == null || !account.span().label().equals(status.window)) {
      return;
    }
    Map<String, BigDecimal> ended = new HashMap<>();
    if (status.resources != null) {
      for (BudgetStatus.ResourceUse r : status.resources) {
        if (r.endedResourceSeconds != null) {
          ended.put(r.resource, new BigDecimal(r.endedResourceSeconds));
        }
      }
    }
    Map<String, Long> counted = new HashMap<>();
    if (status.counted != null) {
      for (BudgetStatus.CountedRun c : status.counted) {
        counted.put(c.uid, Timestamps.millis(c.runStart));
      }
    }
    account.restore(ended, counted);
  }

  private static BigDecimal hours(BigDecimal resourceSeconds) {
    return resourceSeconds.divide(SECONDS_PER_HOUR, 6, RoundingMode.DOWN);
  }

  private static String json(Object o) {
    return io.fabric8.kubernetes.client.utils.Serialization.asJson(o);
  }
}
