package dev.berth.engine;

import dev.berth.engine.model.ClusterQueue;
import dev.berth.engine.model.Cohort;
import dev.berth.engine.model.FlavorFungibility;
import dev.berth.engine.model.FlavorQuotas;
import dev.berth.engine.model.LabelSelector;
import dev.berth.engine.model.LabelSelectorRequirement;
import dev.berth.engine.model.LocalQueue;
import dev.berth.engine.model.NodeSelectorTerm;
import dev.berth.engine.model.PodSet;
import dev.berth.engine.model.PreemptionPolicy;
import dev.berth.engine.model.QueueingStrategy;
import dev.berth.engine.model.ResourceFlavor;
import dev.berth.engine.model.ResourceGroup;
import dev.berth.engine.model.ResourceQuota;
import dev.berth.engine.model.StopPolicy;
import dev.berth.engine.model.Taint;
import dev.berth.engine.model.TaintEffect;
import dev.berth.engine.model.Toleration;
import dev.berth.engine.model.Workload;
import dev.berth.engine.quota.Quantity;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Fluent builders for engine tests, in the style of Kueue's MakeWorkload(...).Queue(...). */
final class Builders {
  private Builders() {}

  static FlavorBuilder flavor(String name) {
    return new FlavorBuilder(name);
  }

  static QueueBuilder clusterQueue(String name) {
    return new QueueBuilder(name);
  }

  static CohortBuilder cohort(String name) {
    return new CohortBuilder(name);
  }

  static LocalQueue localQueue(String name, String clusterQueue) {
    return new LocalQueue("default", name, clusterQueue, StopPolicy.None);
  }

  static LocalQueue localQueue(
      String namespace, String name, String clusterQueue, StopPolicy stop) {
    return new LocalQueue(namespace, name, clusterQueue, stop);
  }

  static WorkloadBuilder workload(String name) {
    return new WorkloadBuilder(name);
  }

  static long q(String resource, String quantity) {
    return Quantity.parse(resource, quantity);
  }

  static final class FlavorBuilder {
    private final String name;
    private final Map<String, String> labels = new LinkedHashMap<>();
    private final List<Taint> taints = new ArrayList<>();
    private final List<Toleration> tolerations = new ArrayList<>();
    private final List<dev.berth.engine.model.DeviceSelector> deviceSelectors = new ArrayList<>();

    FlavorBuilder(String name) {
      this.name = name;
    }

    FlavorBuilder label(String key, String value) {
      labels.put(key, value);
      return this;
    }

    FlavorBuilder taint(String key, String value, TaintEffect effect) {
      taints.add(new Taint(key, value, effect));
      return this;
    }

    FlavorBuilder toleration(Toleration t) {
      tolerations.add(t);
      return this;
    }

    /** A device selector ({@code deviceClass} null: every class). */
    FlavorBuilder deviceSelector(String deviceClass, String expression) {
      deviceSelectors.add(new dev.berth.engine.model.DeviceSelector(deviceClass, expression));
      return this;
    }

    ResourceFlavor build() {
      return new ResourceFlavor(name, labels, taints, tolerations, null, deviceSelectors);
    }
  }

  /**
   * Collects resource groups: flavor(...) opens a flavor in the current group, res(...) adds quota.
   */
  abstract static class QuotaBuilder<T extends QuotaBuilder<T>> {
    final List<List<FlavorQuotas>> groups = new ArrayList<>(List.of(new ArrayList<>()));
    private String currentFlavor;
    private List<ResourceQuota> current;

    @SuppressWarnings("unchecked")
    T flavor(String name) {
      closeFlavor();
      currentFlavor = name;
      current = new ArrayList<>();
      return (T) this;
    }

    @SuppressWarnings("unchecked")
    T newGroup() {
      closeFlavor();
      groups.add(new ArrayList<>());
      return (T) this;
    }

    T res(String resource, String nominal) {
      return res(resource, nominal, null, null);
    }

    @SuppressWarnings("unchecked")
    T res(String resource, String nominal, String borrowingLimit, String lendingLimit) {
      current.add(
          new ResourceQuota(
              resource,
              q(resource, nominal),
              borrowingLimit == null ? null : q(resource, borrowingLimit),
              lendingLimit == null ? null : q(resource, lendingLimit)));
      return (T) this;
    }

    private void closeFlavor() {
      if (currentFlavor != null) {
        groups.get(groups.size() - 1).add(new FlavorQuotas(currentFlavor, current));
        currentFlavor = null;
      }
    }

    List<ResourceGroup> resourceGroups() {
      closeFlavor();
      List<ResourceGroup> out = new ArrayList<>();
      for (List<FlavorQuotas> g : groups) {
        if (g.isEmpty()) {
          continue;
        }
        List<String> covered = g.get(0).resources().stream().map(ResourceQuota::name).toList();
        out.add(new ResourceGroup(covered, g));
      }
      return out;
    }
  }

  static final class QueueBuilder extends QuotaBuilder<QueueBuilder> {
    private final String name;
    private String cohort;
    private QueueingStrategy strategy = QueueingStrategy.BestEffortFIFO;
    private LabelSelector selector = LabelSelector.ALL;
    private FlavorFungibility fungibility = FlavorFungibility.DEFAULT;
    private PreemptionPolicy preemption = PreemptionPolicy.NEVER;
    private StopPolicy stop = StopPolicy.None;
    private Long weight;
    private boolean usageOrdered;

    QueueBuilder(String name) {
      this.name = name;
    }

    QueueBuilder cohort(String c) {
      cohort = c;
      return this;
    }

    QueueBuilder strictFifo() {
      strategy = QueueingStrategy.StrictFIFO;
      return this;
    }

    QueueBuilder namespaceSelector(LabelSelector s) {
      selector = s;
      return this;
    }

    QueueBuilder fungibility(
        FlavorFungibility.WhenCanBorrow b,
        FlavorFungibility.WhenCanPreempt p,
        FlavorFungibility.Preference pref) {
      fungibility = new FlavorFungibility(b, p, pref);
      return this;
    }

    QueueBuilder preemption(PreemptionPolicy p) {
      preemption = p;
      return this;
    }

    QueueBuilder stop(StopPolicy s) {
      stop = s;
      return this;
    }

    /** fairSharing.weight in thousandths (1000 = 1). */
    QueueBuilder weight(long milli) {
      weight = milli;
      return this;
    }

    /** admissionScope.admissionMode: UsageBasedAdmissionFairSharing. */
    QueueBuilder usageBasedAdmissionFairSharing() {
      usageOrdered = true;
      return this;
    }

    ClusterQueue build() {
      return new ClusterQueue(
          name,
          cohort,
          resourceGroups(),
          strategy,
          selector,
          fungibility,
          preemption,
          stop,
          weight,
          null,
          null,
          null,
          usageOrdered);
    }
  }

  static final class CohortBuilder extends QuotaBuilder<CohortBuilder> {
    private final String name;
    private String parent;
    private Long weight;

    CohortBuilder(String name) {
      this.name = name;
    }

    CohortBuilder parent(String p) {
      parent = p;
      return this;
    }

    /** The fair-sharing weight in thousandths. */
    CohortBuilder weight(long thousandths) {
      weight = thousandths;
      return this;
    }

    Cohort build() {
      return new Cohort(name, parent, resourceGroups(), weight);
    }
  }

  static final class WorkloadBuilder {
    private final String name;
    private String uid;
    private String namespace = "default";
    private String queue = "lq";
    private int priority;
    private long created;
    private final List<PodSetSpec> podSets = new ArrayList<>();

    private static final class PodSetSpec {
      String name;
      int count;
      Integer minCount;
      Map<String, Long> requests = new LinkedHashMap<>();
      Map<String, String> nodeSelector = new HashMap<>();
      List<NodeSelectorTerm> affinity = new ArrayList<>();
      List<Toleration> tolerations = new ArrayList<>();
      dev.berth.engine.topology.TopologyRequest topologyRequest;
      Map<String, Long> shared = new LinkedHashMap<>();
      List<dev.berth.engine.model.SharedClaimRequest> sharedClaims = new ArrayList<>();
    }

    WorkloadBuilder(String name) {
      this.name = name;
      this.uid = name;
    }

    WorkloadBuilder uid(String u) {
      uid = u;
      return this;
    }

    WorkloadBuilder namespace(String ns) {
      namespace = ns;
      return this;
    }

    WorkloadBuilder queue(String q) {
      queue = q;
      return this;
    }

    WorkloadBuilder priority(int p) {
      priority = p;
      return this;
    }

    WorkloadBuilder created(long t) {
      created = t;
      return this;
    }

    /** podSet(name, count, resource, quantity, resource, quantity, ...): per-pod requests. */
    WorkloadBuilder podSet(String psName, int count, String... requests) {
      PodSetSpec ps = new PodSetSpec();
      ps.name = psName;
      ps.count = count;
      for (int i = 0; i < requests.length; i += 2) {
        ps.requests.put(requests[i], q(requests[i], requests[i + 1]));
      }
      podSets.add(ps);
      return this;
    }

    WorkloadBuilder minCount(int m) {
      last().minCount = m;
      return this;
    }

    /** One more per-pod request of the last podSet. */
    WorkloadBuilder request(String resource, String quantity) {
      last().requests.put(resource, q(resource, quantity));
      return this;
    }

    /** What the last podSet holds once whatever its count (a shared ResourceClaim's devices). */
    WorkloadBuilder shared(String resource, String quantity) {
      last().shared.put(resource, q(resource, quantity));
      return this;
    }

    /**
     * One request of a shared claim the last podSet is charged for ({@code count} devices of {@code
     * resource}), of {@code deviceClass}, carrying {@code selectors}.
     */
    WorkloadBuilder sharedClaim(
        String claim, String resource, String count, String deviceClass, String... selectors) {
      last().shared.merge(resource, q(resource, count), Long::sum);
      last()
          .sharedClaims
          .add(
              new dev.berth.engine.model.SharedClaimRequest(
                  claim, "gpus", deviceClass, resource, List.of(selectors)));
      return this;
    }

    WorkloadBuilder topology(dev.berth.engine.topology.TopologyRequest r) {
      last().topologyRequest = r;
      return this;
    }

    WorkloadBuilder nodeSelector(String key, String value) {
      last().nodeSelector.put(key, value);
      return this;
    }

    WorkloadBuilder requiredAffinity(
        String key, LabelSelectorRequirement.Operator op, String... values) {
      last()
          .affinity
          .add(
              new NodeSelectorTerm(
                  List.of(new LabelSelectorRequirement(key, op, List.of(values)))));
      return this;
    }

    WorkloadBuilder toleration(Toleration t) {
      last().tolerations.add(t);
      return this;
    }

    private PodSetSpec last() {
      return podSets.get(podSets.size() - 1);
    }

    String name() {
      return name;
    }

    Workload build() {
      List<PodSet> ps = new ArrayList<>();
      for (PodSetSpec s : podSets) {
        ps.add(
            new PodSet(
                s.name,
                s.count,
                s.minCount,
                s.requests,
                s.nodeSelector,
                s.affinity,
                s.tolerations,
                s.topologyRequest,
                s.shared,
                s.sharedClaims));
      }
      return new Workload(uid, namespace, name, queue, priority, created, ps);
    }
  }
}
