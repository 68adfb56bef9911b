package dev.berth.kubectl;

import java.util.Map;

/** The kinds create, list, stop and resume act on, by any name kubectl or kueuectl accepts. */
final class Kinds {
  private Kinds() {}

  private static final Map<String, String> NAMES =
      Map.ofEntries(
          Map.entry("clusterqueue", "clusterqueue"),
          Map.entry("clusterqueues", "clusterqueue"),
          Map.entry("cq", "clusterqueue"),
          Map.entry("localqueue", "localqueue"),
          Map.entry("localqueues", "localqueue"),
          Map.entry("lq", "localqueue"),
          Map.entry("workload", "workload"),
          Map.entry("workloads", "workload"),
          Map.entry("wl", "workload"));

  /** clusterqueue, localqueue or workload; null for anything else. */
  static String canonical(String typed) {
    return typed == null ? null : NAMES.get(typed.toLowerCase(java.util.Locale.ROOT));
  }

  /** The resource as kubectl is given it, group-qualified so Kueue's own CRDs never answer. */
  static String resource(String kind) {
    return kind + "s.berth.dev";
  }
}
