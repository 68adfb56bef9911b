package dev.berth.testing;

import dev.berth.api.v1beta1.Admission;
import dev.berth.api.v1beta1.Condition;
import dev.berth.api.v1beta1.PodSet;
import dev.berth.api.v1beta1.PodSetAssignment;
import dev.berth.api.v1beta1.Workload;
import dev.berth.api.v1beta1.WorkloadSpec;
import dev.berth.api.v1beta1.WorkloadStatus;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.PodTemplateSpecBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A Workload, as Kueue's {@code MakeWorkload}: {@code Workloads.named("train").in("team")
 * .queue("lq").podSet("workers", 4).request("nvidia.com/gpu", "8").reserved("cq", "h100", at)}.
 * Requests go to the last podSet named (one podSet "main" of one pod if none is). A reservation
 * assigns every requested resource of every podSet to one flavor and uses request × count.
 */
public final class Workloads {
  private final Workload wl = new Workload();
  private final List<Draft> podSets = new ArrayList<>();
  private final List<Condition> conditions = new ArrayList<>();
  private WorkloadStatus.RequeueState requeueState;
  private String reservedIn;
  private String reservedOn;

  private static final class Draft {
    final String name;
    final int count;
    Integer minCount;
    final Map<String, Quantity> requests = new LinkedHashMap<>();

    Draft(String name, int count) {
      this.name = name;
      this.count = count;
    }
  }

  private Workloads(String name) {
    wl.getMetadata().setName(name);
    wl.setSpec(new WorkloadSpec());
  }

  public static Workloads named(String name) {
    return new Workloads(name);
  }

  public Workloads in(String namespace) {
    wl.getMetadata().setNamespace(namespace);
    return this;
  }

  public Workloads uid(String uid) {
    wl.getMetadata().setUid(uid);
    return this;
  }

  public Workloads resourceVersion(String resourceVersion) {
    wl.getMetadata().setResourceVersion(resourceVersion);
    return this;
  }

  /** The creationTimestamp, an RFC 3339 time: the queue order. */
  public Workloads created(String at) {
    wl.getMetadata().setCreationTimestamp(at);
    return this;
  }

  public Workloads annotation(String key, String value) {
    if (wl.getMetadata().getAnnotations() == null) {
      wl.getMetadata().setAnnotations(new LinkedHashMap<>());
    }
    wl.getMetadata().getAnnotations().put(key, value);
    return this;
  }

  public Workloads queue(String localQueue) {
    wl.getSpec().queueName = localQueue;
    return this;
  }

  public Workloads priority(int priority) {
    wl.getSpec().priority = priority;
    return this;
  }

  public Workloads active(boolean active) {
    wl.getSpec().active = active;
    return this;
  }

  public Workloads maximumExecutionTimeSeconds(int seconds) {
    wl.getSpec().maximumExecutionTimeSeconds = seconds;
    return this;
  }

  /** A podSet of {@code count} pods; the requests that follow are each pod's. */
  public Workloads podSet(String name, int count) {
    podSets.add(new Draft(name, count));
    return this;
  }

  /** Partial admission: the last podSet may run with as few as {@code minCount} pods. */
  public Workloads minCount(int minCount) {
    current().minCount = minCount;
    return this;
  }

  public Workloads request(String resource, String amount) {
    current().requests.put(resource, new Quantity(amount));
    return this;
  }

  private Draft current() {
    if (podSets.isEmpty()) {
      podSet("main", 1);
    }
    return podSets.get(podSets.size() - 1);
  }

  /** Quota reserved in {@code clusterQueue} on {@code flavor} at {@code at} (QuotaReserved). */
  public Workloads reserved(String clusterQueue, String flavor, String at) {
    reservedIn = clusterQueue;
    reservedOn = flavor;
    return condition("QuotaReserved", true, "QuotaReserved", at);
  }

  /** Reserved and every admission check passed: QuotaReserved and Admitted. */
  public Workloads admitted(String clusterQueue, String flavor, String at) {
    reserved(clusterQueue, flavor, at);
    return condition("Admitted", true, "Admitted", at);
  }

  public Workloads evicted(String reason, String at) {
    return condition("Evicted", true, reason, at);
  }

  public Workloads finished(String reason, String at) {
    return condition("Finished", true, reason, at);
  }

  /** Requeued {@code count} times, not to be reconsidered before {@code at} (RFC 3339). */
  public Workloads requeueState(int count, String at) {
    requeueState = new WorkloadStatus.RequeueState();
    requeueState.count = count;
    requeueState.requeueAt = at;
    return this;
  }

  /** A condition as metav1.Condition holds it; its message is its reason. */
  public Workloads condition(String type, boolean status, String reason, String at) {
    conditions.removeIf(c -> type.equals(c.type));
    Condition c = new Condition(type, status ? "True" : "False", reason, reason);
    c.lastTransitionTime = at;
    conditions.add(c);
    return this;
  }

  public Workload build() {
    current();
    wl.getSpec().podSets = new ArrayList<>(podSets.stream().map(Workloads::podSet).toList());
    if (!conditions.isEmpty() || requeueState != null) {
      WorkloadStatus status = new WorkloadStatus();
      status.conditions = conditions;
      status.requeueState = requeueState;
      if (reservedIn != null) {
        status.admission = new Admission();
        status.admission.clusterQueue = reservedIn;
        status.admission.podSetAssignments =
            new ArrayList<>(podSets.stream().map(this::assignment).toList());
      }
      wl.setStatus(status);
    }
    return wl;
  }

  private static PodSet podSet(Draft draft) {
    PodSet ps =
        new PodSet(
            draft.name,
            draft.count,
            new PodTemplateSpecBuilder()
                .withNewSpec()
                .addToContainers(
                    new ContainerBuilder()
                        .withName("main")
                        .withNewResources()
                        .withRequests(new LinkedHashMap<>(draft.requests))
                        .endResources()
                        .build())
                .endSpec()
                .build());
    ps.minCount = draft.minCount;
    return ps;
  }

  private PodSetAssignment assignment(Draft draft) {
    PodSetAssignment a = new PodSetAssignment();
    a.name = draft.name;
    a.count = draft.count;
    a.flavors = new LinkedHashMap<>();
    a.resourceUsage = new LinkedHashMap<>();
    draft.requests.forEach(
        (resource, amount) -> {
          a.flavors.put(resource, reservedOn);
          a.resourceUsage.put(resource, amount.multiply(draft.count));
        });
    return a;
  }
}
