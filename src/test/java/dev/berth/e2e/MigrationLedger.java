package dev.berth.e2e;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What a migration from Kueue to Berth did to every Job, from informers on Jobs, pods and both
 * controllers' Workloads started before the first Job: how often each Job was unsuspended, which
 * pods each one started, which controllers admitted a Workload for it, and the highest GPU totals
 * ever admitted per controller and ClusterQueue and ever held by bound, running pods per namespace.
 * Each total is recomputed on every event, so a moment over quota cannot pass between two samples.
 */
final class MigrationLedger implements AutoCloseable {
  static final String KUEUE = "kueue";
  static final String BERTH = "berth";
  private static final String GPU = "nvidia.com/gpu";

  private final Set<String> namespaces;
  private final List<SharedIndexInformer<?>> informers = new ArrayList<>();

  /** Job UID -> times it went from suspended to running (or was created running). */
  private final Map<String, Integer> unsuspends = new ConcurrentHashMap<>();

  /** Job UID -> the UIDs of the pods made for it. */
  private final Map<String, Set<String>> pods = new ConcurrentHashMap<>();

  /** Job UID -> the controllers that reserved quota for one of its Workloads. */
  private final Map<String, Set<String>> admittedBy = new ConcurrentHashMap<>();

  /** "controller/clusterQueue" -> Workload key -> GPUs it holds now. */
  private final Map<String, Map<String, Integer>> admitted = new HashMap<>();

  /** namespace -> pod UID -> GPUs of a bound pod that has not ended. */
  private final Map<String, Map<String, Integer>> running = new HashMap<>();

  private final Map<String, Integer> maxAdmitted = new TreeMap<>();
  private final Map<String, Integer> maxRunning = new TreeMap<>();

  MigrationLedger(KubernetesClient admin, Set<String> namespaces) {
    this.namespaces = namespaces;
    informers.add(
        admin
            .batch()
            .v1()
            .jobs()
            .inAnyNamespace()
            .inform(
                new Handler<Job>() {
                  @Override
                  void seen(Job old, Job job) {
                    boolean wasSuspended = old != null && suspended(old);
                    if ((old == null || wasSuspended) && !suspended(job)) {
                      unsuspends.merge(job.getMetadata().getUid(), 1, Integer::sum);
                    }
                  }
                },
                0));
    informers.add(
        admin
            .pods()
            .inAnyNamespace()
            .inform(
                new Handler<Pod>() {
                  @Override
                  void seen(Pod old, Pod pod) {
                    jobUid(pod.getMetadata().getOwnerReferences())
                        .ifPresent(
                            uid ->
                                pods.computeIfAbsent(uid, u -> ConcurrentHashMap.newKeySet())
                                    .add(pod.getMetadata().getUid()));
                    String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
                    boolean holds =
                        pod.getSpec().getNodeName() != null
                            && !"Succeeded".equals(phase)
                            && !"Failed".equals(phase);
                    record(
                        running,
                        maxRunning,
                        pod.getMetadata().getNamespace(),
                        pod.getMetadata().getUid(),
                        holds ? podGpus(pod) : 0);
                  }

                  @Override
                  void gone(Pod pod) {
                    record(
                        running,
                        maxRunning,
                        pod.getMetadata().getNamespace(),
                        pod.getMetadata().getUid(),
                        0);
                  }
                },
                0));
    informers.add(workloads(admin, "kueue.x-k8s.io/v1beta2", KUEUE));
    informers.add(workloads(admin, "berth.dev/v1beta1", BERTH));
  }

  private SharedIndexInformer<GenericKubernetesResource> workloads(
      KubernetesClient admin, String apiVersion, String controller) {
    return admin
        .genericKubernetesResources(apiVersion, "Workload")
        .inAnyNamespace()
        .inform(
            new Handler<GenericKubernetesResource>() {
              @Override
              void seen(GenericKubernetesResource old, GenericKubernetesResource wl) {
                Map<String, Object> status = map(wl.getAdditionalProperties().get("status"));
                boolean reserving =
                    condition(status, "QuotaReserved") && !condition(status, "Finished");
                Map<String, Object> admission = map(status.get("admission"));
                String key = wl.getMetadata().getNamespace() + "/" + wl.getMetadata().getName();
                if (reserving) {
                  jobUid(wl.getMetadata().getOwnerReferences())
                      .ifPresent(
                          uid ->
                              admittedBy
                                  .computeIfAbsent(uid, u -> ConcurrentHashMap.newKeySet())
                                  .add(controller));
                }
                // The Workload is charged to the ClusterQueue of its admission; once it no
                // longer reserves, to none (looked up by key in every ClusterQueue's map).
                synchronized (MigrationLedger.this) {
                  for (Map<String, Integer> byWorkload : admitted.values()) {
                    byWorkload.remove(key);
                  }
                }
                if (reserving) {
                  record(
                      admitted,
                      maxAdmitted,
                      controller + "/" + admission.get("clusterQueue"),
                      key,
                      admissionGpus(admission, status));
                }
              }

              @Override
              void gone(GenericKubernetesResource wl) {
                synchronized (MigrationLedger.this) {
                  for (Map<String, Integer> byWorkload : admitted.values()) {
                    byWorkload.remove(
                        wl.getMetadata().getNamespace() + "/" + wl.getMetadata().getName());
                  }
                }
              }
            },
            0);
  }

  private synchronized void record(
      Map<String, Map<String, Integer>> totals,
      Map<String, Integer> maxima,
      String group,
      String key,
      int gpus) {
    Map<String, Integer> byKey = totals.computeIfAbsent(group, g -> new HashMap<>());
    if (gpus == 0) {
      byKey.remove(key);
    } else {
      byKey.put(key, gpus);
    }
    int total = byKey.values().stream().mapToInt(Integer::intValue).sum();
    maxima.merge(group, total, Math::max);
  }

  /** How often the Job was unsuspended (0 if never). */
  int unsuspends(Job job) {
    return unsuspends.getOrDefault(job.getMetadata().getUid(), 0);
  }

  /** The pods ever made for the Job. */
  Set<String> pods(Job job) {
    return pods.getOrDefault(job.getMetadata().getUid(), Set.of());
  }

  /** The controllers that reserved quota for the Job ({@link #KUEUE}, {@link #BERTH}). */
  Set<String> admittedBy(Job job) {
    return admittedBy.getOrDefault(job.getMetadata().getUid(), Set.of());
  }

  /** The most GPUs ever reserved at once, per "controller/clusterQueue". */
  synchronized Map<String, Integer> maxAdmitted() {
    return new TreeMap<>(maxAdmitted);
  }

  /** The most GPUs ever held at once by bound, running pods, per namespace. */
  synchronized Map<String, Integer> maxRunning() {
    return new TreeMap<>(maxRunning);
  }

  @Override
  public void close() {
    informers.forEach(SharedIndexInformer::close);
  }

  private static boolean suspended(Job job) {
    return Boolean.TRUE.equals(job.getSpec().getSuspend());
  }

  private static java.util.Optional<String> jobUid(List<OwnerReference> owners) {
    return owners == null
        ? java.util.Optional.empty()
        : owners.stream()
            .filter(o -> "Job".equals(o.getKind()) && "batch/v1".equals(o.getApiVersion()))
            .map(OwnerReference::getUid)
            .findFirst();
  }

  private static int podGpus(Pod pod) {
    return pod.getSpec().getContainers().stream()
        .map(c -> c.getResources() == null ? null : c.getResources().getLimits())
        .filter(limits -> limits != null && limits.containsKey(GPU))
        .mapToInt(limits -> limits.get(GPU).getNumericalAmount().intValue())
        .sum();
  }

  /**
   * The GPUs the Workload reserves now: its admission's usage less that of its reclaimable pods
   * (pods that finished). Kueue gives a finished pod's quota back at once, before the Workload is
   * Finished, and may admit the next Workload on it; counting the whole admission until Finished
   * would show that as over-admission when it is not.
   */
  private static int admissionGpus(Map<String, Object> admission, Map<String, Object> status) {
    Map<String, Integer> reclaimable = new HashMap<>();
    if (status.get("reclaimablePods") instanceof List<?> pods) {
      for (Object pod : pods) {
        Map<String, Object> entry = map(pod);
        if (entry.get("name") != null && entry.get("count") instanceof Number n) {
          reclaimable.put(entry.get("name").toString(), n.intValue());
        }
      }
    }
    int gpus = 0;
    Object assignments = admission.get("podSetAssignments");
    if (assignments instanceof List<?> list) {
      for (Object assignment : list) {
        Map<String, Object> podSet = map(assignment);
        Object amount = map(podSet.get("resourceUsage")).get(GPU);
        if (amount == null) {
          continue;
        }
        int total = new Quantity(amount.toString()).getNumericalAmount().intValue();
        int count = podSet.get("count") instanceof Number n ? n.intValue() : 0;
        int done = reclaimable.getOrDefault(String.valueOf(podSet.get("name")), 0);
        gpus += count > 0 ? total / count * Math.max(0, count - done) : total;
      }
    }
    return gpus;
  }

  private static boolean condition(Map<String, Object> status, String type) {
    Object conditions = status.get("conditions");
    return conditions instanceof List<?> list
        && list.stream()
            .map(MigrationLedger::map)
            .anyMatch(c -> type.equals(c.get("type")) && "True".equals(c.get("status")));
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> map(Object o) {
    return o instanceof Map<?, ?> m ? (Map<String, Object>) m : Map.of();
  }

  /** An informer handler restricted to the migration's namespaces. */
  private abstract class Handler<T extends io.fabric8.kubernetes.api.model.HasMetadata>
      implements ResourceEventHandler<T> {
    abstract void seen(T old, T object);

    void gone(T object) {}

    private boolean ours(T object) {
      return namespaces.contains(object.getMetadata().getNamespace());
    }

    @Override
    public void onAdd(T object) {
      if (ours(object)) {
        seen(null, object);
      }
    }

    @Override
    public void onUpdate(T old, T object) {
      if (ours(object)) {
        seen(old, object);
      }
    }

    @Override
    public void onDelete(T object, boolean unknownFinalState) {
      if (ours(object)) {
        gone(object);
      }
    }
  }
}
