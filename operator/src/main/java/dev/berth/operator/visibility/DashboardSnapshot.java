package dev.berth.operator.visibility;

import dev.berth.api.v1beta1.ClusterQueue;
import dev.berth.api.v1beta1.Cohort;
import dev.berth.engine.FlavorUsage;
import dev.berth.engine.PendingEntry;
import dev.berth.engine.QueueCounts;
import dev.berth.engine.StatusView;
import dev.berth.engine.topology.FragmentationReport;
import dev.berth.engine.topology.NodeInventory;
import dev.berth.operator.admission.ClusterView;
import dev.berth.operator.metrics.TopologyMetrics;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What the dashboard shows, read in one go on the admission loop's thread: every ClusterQueue's
 * usage against nominal quota and borrowing limit per flavor and resource, the cohorts, the pending
 * workloads in admission order, and the free capacity of every topology domain. Nothing here is
 * filtered yet: {@link DashboardEndpoint} leaves out what the caller may not list.
 */
record DashboardSnapshot(
    List<Map<String, Object>> clusterQueues,
    List<Map<String, Object>> cohorts,
    Map<String, List<PendingEntry>> pending,
    List<Map<String, Object>> topology) {

  static DashboardSnapshot of(ClusterView state) {
    StatusView status = state.engineStatus();
    List<Map<String, Object>> queues = new ArrayList<>();
    Map<String, List<String>> members = new TreeMap<>();
    Map<String, List<PendingEntry>> pending = new TreeMap<>();
    for (ClusterQueue cq : state.clusterQueues()) {
      String name = cq.getMetadata().getName();
      String cohort = cq.getSpec() == null ? null : cq.getSpec().cohortName;
      if (cohort != null && !cohort.isEmpty()) {
        members.computeIfAbsent(cohort, c -> new ArrayList<>()).add(name);
      }
      QueueCounts counts = status.clusterQueueCounts(name);
      Map<String, Object> q = new LinkedHashMap<>();
      q.put("name", name);
      q.put("cohort", cohort == null || cohort.isEmpty() ? null : cohort);
      q.put("inactiveMessage", status.clusterQueueInactiveMessage(name));
      q.put("pendingActive", counts.pendingActive());
      q.put("pendingInadmissible", counts.pendingInadmissible());
      q.put("admitted", counts.admitted());
      q.put("weightedShare", status.weightedShare(name));
      q.put("resources", resources(cq, status.usage(name)));
      queues.add(q);
      pending.put(name, List.copyOf(status.pendingWorkloads(name)));
    }
    queues.sort((a, b) -> ((String) a.get("name")).compareTo((String) b.get("name")));
    Map<String, String> parents = new TreeMap<>();
    for (Cohort c : state.cohorts()) {
      parents.put(c.getMetadata().getName(), c.getSpec() == null ? null : c.getSpec().parentName);
      members.putIfAbsent(c.getMetadata().getName(), new ArrayList<>());
    }
    List<Map<String, Object>> cohorts = new ArrayList<>();
    members.forEach(
        (name, cqs) -> {
          Map<String, Object> c = new LinkedHashMap<>();
          c.put("name", name);
          c.put("parent", parents.get(name));
          c.put("clusterQueues", cqs.stream().sorted().toList());
          c.put("weightedShare", status.cohortWeightedShare(name));
          c.put("inactiveMessage", status.cohortInactiveMessage(name));
          cohorts.add(c);
        });
    return new DashboardSnapshot(queues, cohorts, pending, topology(state.topologyInventories()));
  }

  /**
   * Per flavor and resource: nominal quota, usage, the part borrowed, and the limits as written
   * (null: none). {@code values} holds the same figures in one unit for the bars.
   */
  private static List<Map<String, Object>> resources(ClusterQueue cq, List<FlavorUsage> usage) {
    Map<String, Quantity[]> limits = new LinkedHashMap<>();
    if (cq.getSpec() != null && cq.getSpec().resourceGroups != null) {
      for (var g : cq.getSpec().resourceGroups) {
        for (var f : g.flavors) {
          for (var r : f.resources) {
            limits.put(f.name + "/" + r.name, new Quantity[] {r.borrowingLimit, r.lendingLimit});
          }
        }
      }
    }
    List<Map<String, Object>> out = new ArrayList<>();
    for (FlavorUsage u : usage) {
      Quantity[] written = limits.getOrDefault(u.flavor() + "/" + u.resource(), new Quantity[2]);
      Long borrowingLimit = canonical(u.resource(), written[0]);
      Long lendingLimit = canonical(u.resource(), written[1]);
      Map<String, Object> r = new LinkedHashMap<>();
      r.put("flavor", u.flavor());
      r.put("resource", u.resource());
      r.put("nominal", format(u.resource(), u.nominal()));
      r.put("usage", format(u.resource(), u.total()));
      r.put("borrowed", format(u.resource(), u.borrowed()));
      r.put("borrowingLimit", borrowingLimit == null ? null : format(u.resource(), borrowingLimit));
      r.put("lendingLimit", lendingLimit == null ? null : format(u.resource(), lendingLimit));
      Map<String, Object> values = new LinkedHashMap<>();
      values.put("nominal", u.nominal());
      values.put("usage", u.total());
      values.put("borrowingLimit", borrowingLimit);
      r.put("values", values);
      out.add(r);
    }
    return out;
  }

  /**
   * Per topology-aware flavor and level: every domain's free capacity per resource, how many
   * one-unit pods (1 GPU, 1 cpu, 1 GiB) it holds, and the largest such gang one domain holds.
   */
  private static List<Map<String, Object>> topology(Map<String, NodeInventory> inventories) {
    List<Map<String, Object>> flavors = new ArrayList<>();
    new TreeMap<>(inventories)
        .forEach(
            (flavor, inventory) -> {
              Map<String, Map<String, Object>> levels = new LinkedHashMap<>();
              for (String resource : TopologyMetrics.resources(inventory)) {
                FragmentationReport report =
                    FragmentationReport.of(
                        inventory, Map.of(resource, TopologyMetrics.unit(resource)));
                for (FragmentationReport.LevelReport level : report.levels()) {
                  Map<String, Object> l =
                      levels.computeIfAbsent(
                          level.level(),
                          name -> {
                            Map<String, Object> m = new LinkedHashMap<>();
                            m.put("level", name);
                            m.put("largestGang", new LinkedHashMap<String, Long>());
                            m.put("domains", new LinkedHashMap<String, Map<String, Object>>());
                            return m;
                          });
                  largestGang(l).put(resource, level.largestGang());
                  for (FragmentationReport.DomainFree d : level.domains()) {
                    String domain = String.join("/", d.values());
                    Map<String, Object> row =
                        domains(l)
                            .computeIfAbsent(
                                domain,
                                k -> {
                                  Map<String, Object> m = new LinkedHashMap<>();
                                  m.put("domain", k);
                                  m.put("free", new LinkedHashMap<String, String>());
                                  return m;
                                });
                    @SuppressWarnings("unchecked")
                    Map<String, String> free = (Map<String, String>) row.get("free");
                    free.put(resource, format(resource, d.free().getOrDefault(resource, 0L)));
                  }
                }
              }
              List<Map<String, Object>> levelList = new ArrayList<>();
              for (Map<String, Object> l : levels.values()) {
                Map<String, Object> out = new LinkedHashMap<>(l);
                out.put("domains", List.copyOf(domains(l).values()));
                levelList.add(out);
              }
              Map<String, Object> f = new LinkedHashMap<>();
              f.put("flavor", flavor);
              f.put("levels", levelList);
              flavors.add(f);
            });
    return flavors;
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Long> largestGang(Map<String, Object> level) {
    return (Map<String, Long>) level.get("largestGang");
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Map<String, Object>> domains(Map<String, Object> level) {
    return (Map<String, Map<String, Object>>) level.get("domains");
  }

  private static Long canonical(String resource, Quantity written) {
    return written == null
        ? null
        : dev.berth.engine.quota.Quantity.parse(resource, written.toString());
  }

  private static String format(String resource, long canonical) {
    return dev.berth.engine.quota.Quantity.format(resource, canonical);
  }
}
