package dev.berth.api.v1beta1;

import dev.berth.api.crd.Items;
import dev.berth.api.crd.MaxLength;
import dev.berth.api.crd.Rule;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.kubernetes.api.model.LabelSelector;
import java.util.List;

/** Quota, the cohort it shares with, and the policies that order and preempt its workloads. */
@Rule(
    value =
        "has(self.cohortName) || !has(self.resourceGroups) || self.resourceGroups.all(g, g.flavors.all(f, f.resources.all(r, !has(r.borrowingLimit) && !has(r.lendingLimit))))",
    message = "borrowingLimit and lendingLimit are only allowed with a cohortName")
public class ClusterQueueSpec {
  @Items(max = 16)
  public List<ResourceGroup> resourceGroups;

  /** The cohort whose members lend and borrow unused quota among themselves. */
  @Pattern(Berth.DNS_SUBDOMAIN)
  @MaxLength(253)
  public String cohortName;

  public QueueingStrategy queueingStrategy;

  /** Namespaces whose LocalQueues may use this queue: absent matches none, {} matches all. */
  public LabelSelector namespaceSelector;

  public FlavorFungibility flavorFungibility;

  public ClusterQueuePreemption preemption;

  public StopPolicy stopPolicy;

  public FairSharing fairSharing;

  public AdmissionChecksStrategy admissionChecksStrategy;

  /** Admission fair sharing: the order of its LocalQueues' workloads by their recent usage. */
  public AdmissionScope admissionScope;
}
