package dev.berth.operator.topology;

import dev.berth.api.v1beta1.Berth;
import dev.berth.api.v1beta1.PodSetAssignment;
import dev.berth.api.v1beta1.Workload;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSchedulingGate;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Releases the gated pods of an admitted topology-aware podSet into the domains of its
 * topologyAssignment: each pod gets its domain's node labels in its nodeSelector and loses Berth's
 * scheduling gate, and no domain gets more pods than the assignment gave it. Running, pending and
 * terminating pods keep their domain's slot; finished ones give it back (a Job's replacement pod
 * goes where the finished one was).
 *
 * <p>One podSet at a time (a lock across the operator's reconciler threads), from the pod
 * informer's index of the podSet's pods ({@link #PODS_OF_PODSET}), so that a pod event costs the
 * podSet's pods and no request: listing them from the API server on every pod event made a large
 * gang's start quadratic. The informer lags the ungater's own patches, so the ungater remembers
 * each pod it released, with its domain, until the informer shows it ungated (as Kueue's ungater
 * keeps expectations): a pod released a moment ago keeps its slot and is not released twice.
 */
public final class TopologyUngater {
  private static final Logger log = LoggerFactory.getLogger(TopologyUngater.class);

  /** The pod informer's index of gated-or-not pods by {@link #podSetKey}. */
  public static final String PODS_OF_PODSET = "berth.dev/pods-by-podset";

  private final Function<String, Optional<Workload>> workloadsByUid;
  private final Function<String, List<Pod>> podsOfPodSet;

  /** Pods released by this ungater that the informer still shows gated: uid → their domain. */
  private final Map<String, Map<String, String>> released = new HashMap<>();

  /**
   * @param workloadsByUid the latest Workload of a uid
   * @param podsOfPodSet the pods the informer holds under a {@link #podSetKey}
   */
  public TopologyUngater(
      Function<String, Optional<Workload>> workloadsByUid,
      Function<String, List<Pod>> podsOfPodSet) {
    this.workloadsByUid = workloadsByUid;
    this.podsOfPodSet = podsOfPodSet;
  }

  /** The index keys of a pod: its namespace, Workload uid and podSet, when it has both labels. */
  public static List<String> podSetKey(Pod pod) {
    Map<String, String> labels = pod.getMetadata().getLabels();
    if (labels == null
        || labels.get(Berth.WORKLOAD_LABEL) == null
        || labels.get(Berth.PODSET_LABEL) == null) {
      return List.of();
    }
    return List.of(
        podSetKey(
            pod.getMetadata().getNamespace(),
            labels.get(Berth.WORKLOAD_LABEL),
            labels.get(Berth.PODSET_LABEL)));
  }

  private static String podSetKey(String namespace, String workloadUid, String podSet) {
    return namespace + "/" + workloadUid + "/" + podSet;
  }

  public static boolean isGated(Pod pod) {
    return pod.getSpec() != null
        && pod.getSpec().getSchedulingGates() != null
        && pod.getSpec().getSchedulingGates().stream()
            .anyMatch(g -> Berth.TOPOLOGY_SCHEDULING_GATE.equals(g.getName()));
  }

  /**
   * Ungates the podSet's waiting pods, this one among them. False when this pod must wait: its
   * Workload's topologyAssignment is not known yet, or every domain is full.
   */
  public boolean ungate(KubernetesClient client, Pod pod) {
    Map<String, String> labels =
        pod.getMetadata().getLabels() == null ? Map.of() : pod.getMetadata().getLabels();
    String workloadUid = labels.get(Berth.WORKLOAD_LABEL);
    String podSet = labels.get(Berth.PODSET_LABEL);
    if (workloadUid == null || podSet == null) {
      return false;
    }
    Workload workload = workloadsByUid.apply(workloadUid).orElse(null);
    PodSetAssignment.TopologyAssignment assignment = assignment(workload, podSet);
    if (assignment == null) {
      return false;
    }
    synchronized (this) {
      String namespace = pod.getMetadata().getNamespace();
      List<Pod> pods = podsOfPodSet.apply(podSetKey(namespace, workloadUid, podSet));
      DomainSlots slots = new DomainSlots(assignment);
      List<Pod> waiting = new ArrayList<>();
      for (Pod p : pods) {
        String uid = p.getMetadata().getUid();
        if (finished(p)) {
          released.remove(uid);
          continue;
        }
        if (!isGated(p)) {
          released.remove(uid);
          slots.take(p.getSpec().getNodeSelector());
        } else if (released.containsKey(uid)) {
          slots.take(released.get(uid));
        } else {
          waiting.add(p);
        }
      }
      PodRanks ranks = PodRanks.of(request(workload, podSet), slots.total());
      boolean ranked = ranks != null && waiting.stream().allMatch(p -> ranks.of(p) >= 0);
      // By rank when every waiting pod has one, so that neighbours share a domain; else by name.
      waiting.sort(
          ranked
              ? Comparator.comparingInt(ranks::of)
              : Comparator.comparing(p -> p.getMetadata().getName()));
      String uid = pod.getMetadata().getUid();
      boolean thisOne = waiting.stream().noneMatch(p -> p.getMetadata().getUid().equals(uid));
      for (Pod p : waiting) {
        Map<String, String> domain = ranked ? slots.forRank(ranks.of(p)) : null;
        if (domain == null) {
          // Unranked, or its rank's domain is held by a pod released without one: any free slot,
          // so that the podSet never waits for a slot that will not come back.
          domain = slots.next();
        }
        if (domain == null) {
          log.info(
              "pod {}/{}: every domain of podSet {} is full; it stays gated",
              namespace,
              p.getMetadata().getName(),
              podSet);
          break;
        }
        if (release(client, p, domain)) {
          released.put(p.getMetadata().getUid(), domain);
          if (p.getMetadata().getUid().equals(uid)) {
            thisOne = true;
          }
        }
      }
      return thisOne;
    }
  }

  /**
   * The informer shows the pod ungated, or no longer holds it (deleted, finished): a release of it
   * is no longer expected.
   */
  public synchronized void observed(String podUid) {
    released.remove(podUid);
  }

  private static dev.berth.api.v1beta1.TopologyRequest request(Workload wl, String podSet) {
    if (wl.getSpec() == null || wl.getSpec().podSets == null) {
      return null;
    }
    return wl.getSpec().podSets.stream()
        .filter(ps -> podSet.equals(ps.name))
        .map(ps -> ps.topologyRequest)
        .findFirst()
        .orElse(null);
  }

  private static PodSetAssignment.TopologyAssignment assignment(Workload wl, String podSet) {
    if (wl == null
        || wl.getStatus() == null
        || wl.getStatus().admission == null
        || wl.getStatus().admission.podSetAssignments == null) {
      return null;
    }
    return wl.getStatus().admission.podSetAssignments.stream()
        .filter(a -> podSet.equals(a.name))
        .map(a -> a.topologyAssignment)
        .filter(a -> a != null && a.levels != null && a.domains != null)
        .findFirst()
        .orElse(null);
  }

  private static boolean finished(Pod p) {
    String phase = p.getStatus() == null ? null : p.getStatus().getPhase();
    return "Succeeded".equals(phase) || "Failed".equals(phase);
  }

  /** Adds the domain's labels to the nodeSelector and lifts the gate, in one patch. */
  private static boolean release(KubernetesClient client, Pod pod, Map<String, String> domain) {
    try {
      client
          .pods()
          .inNamespace(pod.getMetadata().getNamespace())
          .withName(pod.getMetadata().getName())
          .edit(
              p -> {
                Map<String, String> selector =
                    new LinkedHashMap<>(
                        p.getSpec().getNodeSelector() == null
                            ? Map.of()
                            : p.getSpec().getNodeSelector());
                selector.putAll(domain);
                p.getSpec().setNodeSelector(selector);
                List<PodSchedulingGate> gates = new ArrayList<>(p.getSpec().getSchedulingGates());
                gates.removeIf(g -> Berth.TOPOLOGY_SCHEDULING_GATE.equals(g.getName()));
                p.getSpec().setSchedulingGates(gates);
                return p;
              });
      return true;
    } catch (KubernetesClientException e) {
      // Gone, or a nodeSelector entry of its own contradicts the domain: it stays gated, visibly.
      log.warn(
          "pod {}/{} not ungated into {}: {}",
          pod.getMetadata().getNamespace(),
          pod.getMetadata().getName(),
          domain,
          e.getMessage());
      return false;
    }
  }
}
