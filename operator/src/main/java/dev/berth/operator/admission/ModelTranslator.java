package dev.berth.operator.admission;

import dev.berth.api.v1beta1.Berth;
import dev.berth.api.v1beta1.ClusterQueuePreemption;
import dev.berth.api.v1beta1.FlavorFungibility;
import dev.berth.api.v1beta1.ResourceGroup;
import dev.berth.engine.model.ClusterQueue;
import dev.berth.engine.model.Cohort;
import dev.berth.engine.model.DeviceSelector;
import dev.berth.engine.model.FlavorQuotas;
import dev.berth.engine.model.LabelSelector;
import dev.berth.engine.model.LabelSelectorRequirement;
import dev.berth.engine.model.LocalQueue;
import dev.berth.engine.model.NodeSelectorTerm;
import dev.berth.engine.model.PodSet;
import dev.berth.engine.model.PreemptionPolicy;
import dev.berth.engine.model.QueueingStrategy;
import dev.berth.engine.model.ResourceFlavor;
import dev.berth.engine.model.ResourceQuota;
import dev.berth.engine.model.SharedClaimRequest;
import dev.berth.engine.model.StopPolicy;
import dev.berth.engine.model.Taint;
import dev.berth.engine.model.TaintEffect;
import dev.berth.engine.model.Toleration;
import dev.berth.engine.model.Workload;
import dev.berth.engine.quota.Quantity;
import dev.berth.operator.Timestamps;
import dev.berth.webhook.dra.SharedClaimRequests;
import io.fabric8.kubernetes.api.model.NodeSelectorRequirement;
import io.fabric8.kubernetes.api.model.PodSpec;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/** API objects into the engine's model: the one place that knows both. */
public final class ModelTranslator {
  private ModelTranslator() {}

  public static ResourceFlavor flavor(dev.berth.api.v1beta1.ResourceFlavor rf) {
    var spec = rf.getSpec();
    if (spec == null) {
      return ResourceFlavor.named(rf.getMetadata().getName());
    }
    List<Taint> taints = new ArrayList<>();
    if (spec.nodeTaints != null) {
      for (var t : spec.nodeTaints) {
        taints.add(new Taint(t.getKey(), t.getValue(), TaintEffect.valueOf(t.getEffect())));
      }
    }
    List<DeviceSelector> deviceSelectors = new ArrayList<>();
    if (spec.deviceSelectors != null) {
      for (var s : spec.deviceSelectors) {
        if (s != null && s.cel != null && s.cel.expression != null) {
          deviceSelectors.add(new DeviceSelector(s.deviceClassName, s.cel.expression));
        }
      }
    }
    return new ResourceFlavor(
        rf.getMetadata().getName(),
        spec.nodeLabels,
        taints,
        tolerations(spec.tolerations),
        spec.topologyName,
        deviceSelectors);
  }

  public static List<Toleration> tolerations(List<io.fabric8.kubernetes.api.model.Toleration> in) {
    List<Toleration> result = new ArrayList<>();
    if (in == null) {
      return result;
    }
    for (var t : in) {
      Toleration.Operator op =
          "Exists".equals(t.getOperator()) ? Toleration.Operator.Exists : Toleration.Operator.Equal;
      TaintEffect effect =
          t.getEffect() == null || t.getEffect().isEmpty()
              ? null
              : TaintEffect.valueOf(t.getEffect());
      result.add(new Toleration(t.getKey(), op, t.getValue(), effect));
    }
    return result;
  }

  public static ClusterQueue clusterQueue(dev.berth.api.v1beta1.ClusterQueue cq) {
    var spec = cq.getSpec();
    String name = cq.getMetadata().getName();
    if (spec == null) {
      return new ClusterQueue(name, null, List.of(), null, null, null, null, null);
    }
    return new ClusterQueue(
        name,
        spec.cohortName,
        groups(spec.resourceGroups),
        spec.queueingStrategy == null
            ? null
            : QueueingStrategy.valueOf(spec.queueingStrategy.name()),
        selector(spec.namespaceSelector),
        fungibility(spec.flavorFungibility),
        preemption(spec.preemption),
        stopPolicy(spec.stopPolicy),
        weight(spec.fairSharing),
        spec.preemption == null || spec.preemption.minimumRuntimeSeconds == null
            ? null
            : spec.preemption.minimumRuntimeSeconds * 1000L,
        spec.preemption == null || spec.preemption.borrowBackoffAfterReclaimSeconds == null
            ? null
            : spec.preemption.borrowBackoffAfterReclaimSeconds * 1000L,
        maxPreemptions(spec.preemption),
        spec.admissionScope != null
            && spec.admissionScope.admissionMode
                == dev.berth.api.v1beta1.AdmissionScope.AdmissionMode
                    .UsageBasedAdmissionFairSharing);
  }

  public static Cohort cohort(dev.berth.api.v1beta1.Cohort cohort) {
    var spec = cohort.getSpec();
    return new Cohort(
        cohort.getMetadata().getName(),
        spec == null ? null : spec.parentName,
        spec == null ? List.of() : groups(spec.resourceGroups),
        spec == null ? null : weight(spec.fairSharing));
  }

  public static LocalQueue localQueue(dev.berth.api.v1beta1.LocalQueue lq) {
    return new LocalQueue(
        lq.getMetadata().getNamespace(),
        lq.getMetadata().getName(),
        lq.getSpec().clusterQueue,
        stopPolicy(lq.getSpec().stopPolicy),
        weight(lq.getSpec().fairSharing));
  }

  /**
   * The decayed usage stored in a LocalQueue's status (admission fair sharing), in base units, with
   * its lastUpdate in epoch millis; empty when there is none or it is unreadable (the operator then
   * starts the LocalQueue from what it runs).
   */
  public static Optional<StoredUsage> localQueueUsage(dev.berth.api.v1beta1.LocalQueue lq) {
    var status = lq.getStatus();
    if (status == null
        || status.fairSharing == null
        || status.fairSharing.admissionFairSharingStatus == null
        || status.fairSharing.admissionFairSharingStatus.lastUpdate == null) {
      return Optional.empty();
    }
    var afs = status.fairSharing.admissionFairSharingStatus;
    try {
      Map<String, BigDecimal> consumed = new TreeMap<>();
      if (afs.consumedResources != null) {
        afs.consumedResources.forEach((r, q) -> consumed.put(r, q.getNumericalAmount()));
      }
      return Optional.of(new StoredUsage(consumed, Timestamps.millis(afs.lastUpdate)));
    } catch (RuntimeException e) {
      return Optional.empty();
    }
  }

  /** A LocalQueue's stored decayed usage and when it was sampled. */
  public record StoredUsage(Map<String, BigDecimal> consumed, long lastUpdate) {}

  /** The workload as the engine sees it; its queue timestamp is creation, or the last requeue. */
  public static Workload workload(dev.berth.api.v1beta1.Workload wl) {
    return workload(wl, false);
  }

  /**
   * As {@link #workload(dev.berth.api.v1beta1.Workload)}; with {@code podsReadyByCreation}
   * (waitForPodsReady requeuingStrategy.timestamp Creation) a workload requeued after a
   * PodsReadyTimeout keeps its place by creation instead of going to the back.
   */
  public static Workload workload(dev.berth.api.v1beta1.Workload wl, boolean podsReadyByCreation) {
    var spec = wl.getSpec();
    List<PodSet> podSets = new ArrayList<>();
    Map<String, String> annotations = wl.getMetadata().getAnnotations();
    var sharedClaims =
        SharedClaimRequests.read(
            annotations == null ? null : annotations.get(SharedClaimRequests.ANNOTATION));
    for (var ps : spec.podSets) {
      PodSpec pod = ps.template == null ? null : ps.template.getSpec();
      Map<String, Long> requests = new LinkedHashMap<>();
      PodRequests.of(pod)
          .forEach((resource, q) -> requests.put(resource, Quantity.parse(resource, q.toString())));
      DeviceRequests.addTo(wl, ps.name, requests);
      podSets.add(
          new PodSet(
              ps.name,
              ps.count == null ? 1 : ps.count,
              ps.minCount,
              requests,
              pod == null ? null : pod.getNodeSelector(),
              requiredAffinity(pod),
              pod == null ? null : tolerations(pod.getTolerations()),
              TopologyTranslator.request(ps.topologyRequest),
              DeviceRequests.shared(wl).get(ps.name),
              sharedClaims.getOrDefault(ps.name, List.of()).stream()
                  .map(
                      r ->
                          new SharedClaimRequest(
                              r.claim(), r.request(), r.deviceClass(), r.resource(), r.selectors()))
                  .toList()));
    }
    return new Workload(
        wl.getMetadata().getUid(),
        wl.getMetadata().getNamespace(),
        wl.getMetadata().getName(),
        spec.queueName == null ? "" : spec.queueName,
        spec.priority == null ? 0 : spec.priority,
        queueTimestamp(wl, podsReadyByCreation),
        podSets);
  }

  /**
   * When the workload last wrote a checkpoint, from its annotation {@code
   * berth.dev/last-checkpoint-time} (RFC 3339, as {@code 2026-12-07T21:30:00Z}), in epoch millis;
   * Long.MIN_VALUE when absent or not a timestamp (then it is no cheaper a victim than others).
   */
  public static long lastCheckpoint(dev.berth.api.v1beta1.Workload wl) {
    Map<String, String> annotations = wl.getMetadata().getAnnotations();
    String at =
        annotations == null
            ? null
            : annotations.get(dev.berth.api.v1beta1.Berth.LAST_CHECKPOINT_TIME_ANNOTATION);
    if (at == null) {
      return Long.MIN_VALUE;
    }
    try {
      return java.time.OffsetDateTime.parse(at.trim()).toInstant().toEpochMilli();
    } catch (java.time.format.DateTimeParseException e) {
      return Long.MIN_VALUE;
    }
  }

  /** When the workload's current attempt began: its last requeue, else its submission. */
  public static long queueTimestamp(dev.berth.api.v1beta1.Workload wl) {
    return queueTimestamp(wl, false);
  }

  static long queueTimestamp(dev.berth.api.v1beta1.Workload wl, boolean podsReadyByCreation) {
    var requeued =
        wl.getStatus() == null
            ? java.util.Optional.<dev.berth.api.v1beta1.Condition>empty()
            : StatusConditions.find(wl.getStatus().conditions, StatusConditions.REQUEUED);
    if (podsReadyByCreation) {
      requeued = requeued.filter(c -> !PodsReadyWriter.TIMEOUT.equals(c.reason));
    }
    if (requeued.filter(c -> c.isTrue() && c.lastTransitionTime != null).isPresent()) {
      return Timestamps.millis(requeued.get().lastTransitionTime);
    }
    String created = wl.getMetadata().getCreationTimestamp();
    long createdAt = created == null ? 0 : Timestamps.millis(created);
    return submittedAt(wl, createdAt);
  }

  /** How far before its Workload's creation a submission time is believed. */
  static final long SUBMITTED_AT_WINDOW_MILLIS = 60_000;

  /**
   * The submission time of the annotation, at sub-second resolution, when it lies within a minute
   * before the Workload's creation second (or in that second); else the creation time. The bound
   * keeps a hand-set annotation from moving a workload ahead by more than that.
   */
  static long submittedAt(dev.berth.api.v1beta1.Workload wl, long createdAt) {
    var annotations = wl.getMetadata().getAnnotations();
    String text = annotations == null ? null : annotations.get(Berth.SUBMITTED_AT_ANNOTATION);
    if (text == null) {
      return createdAt;
    }
    try {
      long at = Timestamps.millis(text);
      return at >= createdAt - SUBMITTED_AT_WINDOW_MILLIS && at < createdAt + 1000 ? at : createdAt;
    } catch (java.time.format.DateTimeParseException e) {
      return createdAt;
    }
  }

  private static List<NodeSelectorTerm> requiredAffinity(PodSpec pod) {
    if (pod == null
        || pod.getAffinity() == null
        || pod.getAffinity().getNodeAffinity() == null
        || pod.getAffinity().getNodeAffinity().getRequiredDuringSchedulingIgnoredDuringExecution()
            == null) {
      return List.of();
    }
    List<NodeSelectorTerm> terms = new ArrayList<>();
    for (var term :
        pod.getAffinity()
            .getNodeAffinity()
            .getRequiredDuringSchedulingIgnoredDuringExecution()
            .getNodeSelectorTerms()) {
      List<LabelSelectorRequirement> reqs = new ArrayList<>();
      if (term.getMatchExpressions() != null) {
        for (NodeSelectorRequirement r : term.getMatchExpressions()) {
          reqs.add(
              new LabelSelectorRequirement(
                  r.getKey(),
                  LabelSelectorRequirement.Operator.valueOf(r.getOperator()),
                  r.getValues()));
        }
      }
      terms.add(new NodeSelectorTerm(reqs));
    }
    return terms;
  }

  private static List<dev.berth.engine.model.ResourceGroup> groups(List<ResourceGroup> groups) {
    List<dev.berth.engine.model.ResourceGroup> result = new ArrayList<>();
    if (groups == null) {
      return result;
    }
    for (ResourceGroup g : groups) {
      List<FlavorQuotas> flavors = new ArrayList<>();
      for (var f : g.flavors) {
        List<ResourceQuota> quotas = new ArrayList<>();
        for (var r : f.resources) {
          quotas.add(
              new ResourceQuota(
                  r.name,
                  Quantity.parse(r.name, r.nominalQuota.toString()),
                  r.borrowingLimit == null
                      ? null
                      : Quantity.parse(r.name, r.borrowingLimit.toString()),
                  r.lendingLimit == null
                      ? null
                      : Quantity.parse(r.name, r.lendingLimit.toString())));
        }
        flavors.add(new FlavorQuotas(f.name, quotas));
      }
      result.add(new dev.berth.engine.model.ResourceGroup(g.coveredResources, flavors));
    }
    return result;
  }

  public static LabelSelector selector(io.fabric8.kubernetes.api.model.LabelSelector selector) {
    if (selector == null) {
      return null;
    }
    List<LabelSelectorRequirement> expressions = new ArrayList<>();
    if (selector.getMatchExpressions() != null) {
      for (var e : selector.getMatchExpressions()) {
        expressions.add(
            new LabelSelectorRequirement(
                e.getKey(),
                LabelSelectorRequirement.Operator.valueOf(e.getOperator()),
                e.getValues()));
      }
    }
    return new LabelSelector(selector.getMatchLabels(), expressions);
  }

  private static dev.berth.engine.model.FlavorFungibility fungibility(FlavorFungibility f) {
    if (f == null) {
      return null;
    }
    return new dev.berth.engine.model.FlavorFungibility(
        f.whenCanBorrow == null
            ? null
            : dev.berth.engine.model.FlavorFungibility.WhenCanBorrow.valueOf(
                f.whenCanBorrow.name()),
        f.whenCanPreempt == null
            ? null
            : dev.berth.engine.model.FlavorFungibility.WhenCanPreempt.valueOf(
                f.whenCanPreempt.name()),
        f.preference == null
            ? null
            : dev.berth.engine.model.FlavorFungibility.Preference.valueOf(f.preference.name()));
  }

  private static dev.berth.engine.model.PreemptionLimit maxPreemptions(ClusterQueuePreemption p) {
    if (p == null
        || p.maxPreemptions == null
        || p.maxPreemptions.count == null
        || p.maxPreemptions.windowSeconds == null) {
      return null;
    }
    return new dev.berth.engine.model.PreemptionLimit(
        p.maxPreemptions.count, p.maxPreemptions.windowSeconds * 1000L);
  }

  private static PreemptionPolicy preemption(ClusterQueuePreemption p) {
    if (p == null) {
      return null;
    }
    return new PreemptionPolicy(
        p.withinClusterQueue == null
            ? null
            : PreemptionPolicy.WithinClusterQueue.valueOf(p.withinClusterQueue.name()),
        p.reclaimWithinCohort == null
            ? null
            : PreemptionPolicy.ReclaimWithinCohort.valueOf(p.reclaimWithinCohort.name()),
        p.borrowWithinCohort == null || p.borrowWithinCohort.policy == null
            ? null
            : PreemptionPolicy.BorrowWithinCohort.valueOf(p.borrowWithinCohort.policy.name()),
        p.borrowWithinCohort == null ? null : p.borrowWithinCohort.maxPriorityThreshold,
        p.checkpointWindowSeconds == null ? null : p.checkpointWindowSeconds * 1000L);
  }

  /** The fair-sharing weight in thousandths; absent means 1. */
  private static Long weight(dev.berth.api.v1beta1.FairSharing fairSharing) {
    if (fairSharing == null || fairSharing.weight == null) {
      return null;
    }
    return fairSharing
        .weight
        .getNumericalAmount()
        .movePointRight(3)
        .setScale(0, java.math.RoundingMode.CEILING)
        .longValueExact();
  }

  private static StopPolicy stopPolicy(dev.berth.api.v1beta1.StopPolicy policy) {
    return policy == null ? null : StopPolicy.valueOf(policy.name());
  }
}
