package dev.berth.testing;

import dev.berth.api.v1beta1.AdmissionChecksStrategy;
import dev.berth.api.v1beta1.ClusterQueue;
import dev.berth.api.v1beta1.ClusterQueuePreemption;
import dev.berth.api.v1beta1.ClusterQueueSpec;
import dev.berth.api.v1beta1.FairSharing;
import dev.berth.api.v1beta1.QueueingStrategy;
import dev.berth.api.v1beta1.StopPolicy;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.ArrayList;
import java.util.LinkedHashMap;

/**
 * A ClusterQueue: {@code ClusterQueues.named("team-a").cohort("ai").flavor("h100", gpu("8"))}.
 * Selects every namespace unless {@link #namespaceLabel} narrows it.
 */
public final class ClusterQueues {
  private final ClusterQueue cq = new ClusterQueue();
  private final ClusterQueueSpec spec = new ClusterQueueSpec();
  private final ResourceGroups groups = new ResourceGroups();

  private ClusterQueues(String name) {
    cq.getMetadata().setName(name);
    cq.setSpec(spec);
    spec.namespaceSelector = new LabelSelector();
  }

  public static ClusterQueues named(String name) {
    return new ClusterQueues(name);
  }

  public ClusterQueues cohort(String cohort) {
    spec.cohortName = cohort;
    return this;
  }

  /** Quota on a flavor; flavors with the same resources share a resource group. */
  public ClusterQueues flavor(String flavor, Quota... quotas) {
    groups.add(flavor, quotas);
    return this;
  }

  /** Only namespaces with this label (added to the selector's matchLabels). */
  public ClusterQueues namespaceLabel(String key, String value) {
    if (spec.namespaceSelector.getMatchLabels() == null) {
      spec.namespaceSelector.setMatchLabels(new LinkedHashMap<>());
    }
    spec.namespaceSelector.getMatchLabels().put(key, value);
    return this;
  }

  /** No namespaceSelector at all: the queue selects no namespace. */
  public ClusterQueues noNamespaceSelector() {
    spec.namespaceSelector = null;
    return this;
  }

  public ClusterQueues strategy(QueueingStrategy strategy) {
    spec.queueingStrategy = strategy;
    return this;
  }

  public ClusterQueues preemption(ClusterQueuePreemption.WithinClusterQueue within) {
    preemption().withinClusterQueue = within;
    return this;
  }

  public ClusterQueues reclaimWithinCohort(ClusterQueuePreemption.ReclaimWithinCohort reclaim) {
    preemption().reclaimWithinCohort = reclaim;
    return this;
  }

  /** How long its workloads run before another queue may preempt them. */
  public ClusterQueues minimumRuntimeSeconds(int seconds) {
    preemption().minimumRuntimeSeconds = seconds;
    return this;
  }

  private ClusterQueuePreemption preemption() {
    if (spec.preemption == null) {
      spec.preemption = new ClusterQueuePreemption();
    }
    return spec.preemption;
  }

  public ClusterQueues stopPolicy(StopPolicy policy) {
    spec.stopPolicy = policy;
    return this;
  }

  /** admissionScope.admissionMode: UsageBasedAdmissionFairSharing. */
  public ClusterQueues usageBasedAdmissionFairSharing() {
    spec.admissionScope = new dev.berth.api.v1beta1.AdmissionScope();
    spec.admissionScope.admissionMode =
        dev.berth.api.v1beta1.AdmissionScope.AdmissionMode.UsageBasedAdmissionFairSharing;
    return this;
  }

  public ClusterQueues fairSharingWeight(String weight) {
    spec.fairSharing = new FairSharing();
    spec.fairSharing.weight = new Quantity(weight);
    return this;
  }

  /** AdmissionChecks every workload of the queue must pass, on all its flavors. */
  public ClusterQueues admissionChecks(String... checks) {
    spec.admissionChecksStrategy = new AdmissionChecksStrategy();
    spec.admissionChecksStrategy.admissionChecks = new ArrayList<>();
    for (String check : checks) {
      AdmissionChecksStrategy.AdmissionCheckRule rule =
          new AdmissionChecksStrategy.AdmissionCheckRule();
      rule.name = check;
      spec.admissionChecksStrategy.admissionChecks.add(rule);
    }
    return this;
  }

  public ClusterQueues resourceVersion(String resourceVersion) {
    cq.getMetadata().setResourceVersion(resourceVersion);
    return this;
  }

  /** Being deleted since {@code at} (an RFC 3339 time). */
  public ClusterQueues deleting(String at) {
    cq.getMetadata().setDeletionTimestamp(at);
    return this;
  }

  public ClusterQueue build() {
    spec.resourceGroups = groups.build();
    return cq;
  }
}
