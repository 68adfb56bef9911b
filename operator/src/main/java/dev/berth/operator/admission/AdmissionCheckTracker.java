package dev.berth.operator.admission;

import dev.berth.api.v1beta1.AdmissionCheck;
import dev.berth.api.v1beta1.ClusterQueue;
import dev.berth.api.v1beta1.Workload;
import dev.berth.api.v1beta1.WorkloadStatus.AdmissionCheckState;
import dev.berth.engine.checks.ApplicableChecks;
import dev.berth.engine.checks.CheckRule;
import dev.berth.engine.checks.CheckState;
import dev.berth.engine.checks.CheckStatus;
import dev.berth.engine.checks.KnownCheck;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What the loop knows of admission checks: the AdmissionChecks that exist, the quota-reserved
 * workloads whose checks have not all said Ready (with when they got their quota), and which of
 * those changed since the writer last looked. Loop thread only; the maps are concurrent so the
 * metrics can read them.
 */
public final class AdmissionCheckTracker implements ClusterObserver {
  private final Map<String, KnownCheck> known = new ConcurrentHashMap<>();

  /** uid -> the workload awaiting its checks, as last seen. */
  private final Map<String, Awaiting> awaiting = new ConcurrentHashMap<>();

  private final Set<String> toSettle = new LinkedHashSet<>();

  /** A quota-reserved workload with a check not Ready: since when, and its checks' states. */
  public record Awaiting(String clusterQueue, long reservedAt, List<CheckStatus> states) {}

  public void check(AdmissionCheck check) {
    String name = check.getMetadata().getName();
    var active =
        check.getStatus() == null
            ? java.util.Optional.<dev.berth.api.v1beta1.Condition>empty()
            : StatusConditions.find(check.getStatus().conditions, "Active");
    known.put(
        name,
        new KnownCheck(
            name,
            check.getSpec() == null ? "" : check.getSpec().controllerName,
            active.map(dev.berth.api.v1beta1.Condition::isTrue).orElse(false),
            active.map(c -> c.message).orElse("")));
    toSettle.addAll(awaiting.keySet());
  }

  public void checkDeleted(String name) {
    known.remove(name);
    toSettle.addAll(awaiting.keySet());
  }

  public Map<String, KnownCheck> known() {
    return known;
  }

  /**
   * A Workload as stored now (called for every version the loop keeps): only one holding quota,
   * running and active (reserved or admitted) awaits its checks.
   */
  @Override
  public void workload(Workload wl, WorkloadPhase phase) {
    String uid = wl.getMetadata().getUid();
    List<CheckStatus> states = states(wl);
    boolean live =
        phase instanceof WorkloadPhase.Reserved || phase instanceof WorkloadPhase.Admitted;
    boolean allReady = states.stream().allMatch(s -> s.state() == CheckState.Ready);
    if (!live || states.isEmpty() || (allReady && phase instanceof WorkloadPhase.Admitted)) {
      awaiting.remove(uid);
      return;
    }
    WorkloadPhase.Reservation held = phase.reservation().orElseThrow();
    awaiting.put(uid, new Awaiting(held.clusterQueue(), held.reservedAt(), states));
    toSettle.add(uid);
  }

  @Override
  public void workloadDeleted(String uid, Workload last) {
    forget(uid);
  }

  void forget(String uid) {
    awaiting.remove(uid);
    toSettle.remove(uid);
  }

  /** Workloads whose checks changed since the last call (loop thread). */
  List<String> takeToSettle() {
    List<String> out = new ArrayList<>(toSettle);
    toSettle.clear();
    return out;
  }

  /** A settle that failed to write is tried again on the next cycle. */
  void settleAgain(String uid) {
    if (awaiting.containsKey(uid)) {
      toSettle.add(uid);
    }
  }

  public Map<String, Awaiting> awaiting() {
    return awaiting;
  }

  /** The workload's entries, in the engine's form. */
  static List<CheckStatus> states(Workload wl) {
    if (wl.getStatus() == null || wl.getStatus().admissionChecks == null) {
      return List.of();
    }
    List<CheckStatus> out = new ArrayList<>();
    for (AdmissionCheckState s : wl.getStatus().admissionChecks) {
      if (s != null && s.name != null) {
        out.add(new CheckStatus(s.name, CheckState.of(s.state), s.message));
      }
    }
    return out;
  }

  /** The checks of {@code cq} that apply to a workload assigned {@code flavors}. */
  static List<String> applicable(ClusterQueue cq, Collection<String> flavors) {
    if (cq == null
        || cq.getSpec() == null
        || cq.getSpec().admissionChecksStrategy == null
        || cq.getSpec().admissionChecksStrategy.admissionChecks == null) {
      return List.of();
    }
    List<CheckRule> rules = new ArrayList<>();
    for (var rule : cq.getSpec().admissionChecksStrategy.admissionChecks) {
      if (rule != null && rule.name != null) {
        rules.add(
            new CheckRule(
                rule.name,
                rule.onFlavors == null ? Set.of() : new LinkedHashSet<>(rule.onFlavors)));
      }
    }
    return ApplicableChecks.of(rules, flavors);
  }
}
