package dev.berth.e2e;

import static org.awaitility.Awaitility.await;

import dev.berth.api.v1beta1.ClusterQueue;
import dev.berth.api.v1beta1.ClusterQueuePreemption;
import dev.berth.api.v1beta1.ResourceFlavor;
import dev.berth.api.v1beta1.WorkloadPriorityClass;
import dev.berth.e2e.plane.ControlPlane;
import dev.berth.e2e.plane.SimNode;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import org.awaitility.core.ConditionTimeoutException;

/**
 * What the end-to-end tests on a {@link ControlPlane} share: flavors and queues of 8-GPU nodes, GPU
 * Jobs whose pods KWOK ends as annotated, and waits that fail with the namespace's Jobs, pods and
 * events (nothing here writes Job or pod status).
 */
final class OnPlane {
  static final Duration POD_TIMEOUT = Duration.ofSeconds(60);
  final ControlPlane plane;

  OnPlane(ControlPlane plane) {
    this.plane = plane;
  }

  /** A flavor for the nodes of one GPU model and lifecycle (on-demand or spot). */
  ResourceFlavor flavor(
      String name, String product, String lifecycle, List<Toleration> tolerations) {
    ResourceFlavor rf =
        ScenarioObjects.flavor(
            name, Map.of(SimNode.GPU_PRODUCT, product, SimNode.LIFECYCLE, lifecycle));
    rf.getSpec().tolerations = tolerations;
    return rf;
  }

  void priorityClass(String name, int value) {
    WorkloadPriorityClass wpc = new WorkloadPriorityClass();
    wpc.getMetadata().setName(name);
    wpc.setValue(value);
    plane.client().resource(wpc).serverSideApply();
  }

  /** A namespace with a LocalQueue "lq" on a ClusterQueue of {@code gpus} GPUs of one flavor. */
  Scenario queue(String name, String flavor, int gpus) {
    return queue(name, flavor, gpus, null);
  }

  Scenario queue(String name, String flavor, int gpus, ClusterQueuePreemption preemption) {
    Scenario s = new Scenario(plane.client(), name);
    ClusterQueue cq =
        ScenarioObjects.clusterQueue(name, flavor, SimNode.GPU, Integer.toString(gpus));
    cq.getSpec().preemption = preemption;
    s.client.resource(cq).create();
    s.client.resource(ScenarioObjects.localQueue(name, "lq", name)).create();
    return s;
  }

  /** A suspended Job of {@code pods} pods of 8 GPUs each whose pods KWOK ends as annotated. */
  static Job gpuJob(Scenario s, String name, int pods, String annotation, String after) {
    Job job = ScenarioObjects.job(s.namespace, name, "lq", pods, "1");
    job.getSpec().getTemplate().getSpec().getContainers().get(0).setResources(eightGpus());
    job.getSpec().getTemplate().setMetadata(new ObjectMeta());
    job.getSpec()
        .getTemplate()
        .getMetadata()
        .setAnnotations(new HashMap<>(Map.of(annotation, after)));
    job.getSpec().setBackoffLimit(0);
    return job;
  }

  static ResourceRequirements eightGpus() {
    Map<String, Quantity> gpus = Map.of(SimNode.GPU, new Quantity("8"));
    return new ResourceRequirements(null, gpus, gpus);
  }

  /**
   * Waits until the Job has {@code count} pods, each bound and Running; returns them. Their run-for
   * must leave this wait a few seconds on a loaded machine: a pod already Succeeded fails it.
   */
  List<Pod> runningPods(Scenario s, String job, int count) {
    awaitOrDescribe(
        s,
        job + "'s " + count + " pods bound and Running",
        () -> allBoundAndRunning(plane.podsOf(s.namespace, job), count));
    return plane.podsOf(s.namespace, job);
  }

  /** Exactly {@code count} pods, each bound to a node and Running. */
  static boolean allBoundAndRunning(List<Pod> pods, int count) {
    return pods.size() == count
        && pods.stream()
            .allMatch(
                p ->
                    p.getSpec().getNodeName() != null
                        && "Running".equals(p.getStatus().getPhase()));
  }

  /** The Job controller's own condition, not one a test wrote. */
  void awaitJobCondition(Scenario s, String job, String type) {
    awaitOrDescribe(
        s,
        "Job " + job + " " + type,
        () ->
            s.job(job).getStatus() != null
                && s.job(job).getStatus().getConditions() != null
                && s.job(job).getStatus().getConditions().stream()
                    .anyMatch(c -> type.equals(c.getType()) && "True".equals(c.getStatus())));
  }

  void awaitFinished(Scenario s, String owner) {
    awaitOrDescribe(
        s,
        "Workload of " + owner + " Finished",
        () -> s.condition(owner, "Finished").map(c -> "True".equals(c.status)).orElse(false));
  }

  /** Cordons a node (spec.unschedulable), or lifts the cordon, as kubectl cordon does. */
  void cordon(String node, boolean unschedulable) {
    plane
        .client()
        .nodes()
        .withName(node)
        .edit(
            n -> {
              n.getSpec().setUnschedulable(unschedulable);
              return n;
            });
  }

  /** Waits until no pod runs on nodes named {@code prefix}... (tests take turns on them). */
  void awaitNodesFree(Scenario s, String prefix) {
    awaitOrDescribe(
        s,
        "no pod left on the " + prefix + "* nodes",
        () ->
            plane.client().pods().inAnyNamespace().list().getItems().stream()
                .filter(
                    p ->
                        p.getSpec().getNodeName() != null
                            && p.getSpec().getNodeName().startsWith(prefix))
                .allMatch(
                    p ->
                        "Succeeded".equals(p.getStatus().getPhase())
                            || "Failed".equals(p.getStatus().getPhase())));
  }

  /** Waits; on a timeout fails with the namespace's Jobs, pods and events. */
  void awaitOrDescribe(Scenario s, String what, Callable<Boolean> condition) {
    try {
      await().atMost(POD_TIMEOUT).until(condition);
    } catch (ConditionTimeoutException e) {
      throw new AssertionError(
          "not within "
              + POD_TIMEOUT.toSeconds()
              + " s: "
              + what
              + "\n"
              + plane.describe(s.namespace),
          e);
    }
  }

  /**
   * Pod events in the API server's order: "victim stopped" once all {@code victimPods} pods
   * labelled {@code victimLabel=victim} have stopped (Failed or deleted), "preemptor bound" once a
   * pod of Job {@code preemptorJob} is bound to a node.
   */
  static final class StopThenBind implements AutoCloseable {
    final List<String> order = Collections.synchronizedList(new ArrayList<>());
    private final Set<String> stopped = ConcurrentHashMap.newKeySet();
    private final Watch watch;

    StopThenBind(
        KubernetesClient client,
        String namespace,
        String victimLabel,
        String victim,
        int victimPods,
        String preemptorJob) {
      this(
          client,
          namespace,
          victimLabel,
          victim,
          victimPods,
          "batch.kubernetes.io/job-name",
          preemptorJob);
    }

    /** With the preemptor's pods known by {@code preemptorLabel} (its controller's job label). */
    StopThenBind(
        KubernetesClient client,
        String namespace,
        String victimLabel,
        String victim,
        int victimPods,
        String preemptorLabel,
        String preemptorJob) {
      watch =
          client
              .pods()
              .inNamespace(namespace)
              .watch(
                  new Watcher<>() {
                    @Override
                    public void eventReceived(Action action, Pod pod) {
                      Map<String, String> labels = pod.getMetadata().getLabels();
                      String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
                      if (victim.equals(labels.get(victimLabel))
                          && (action == Action.DELETED || "Failed".equals(phase))
                          && stopped.add(pod.getMetadata().getName())
                          && stopped.size() == victimPods) {
                        order.add("victim stopped");
                      }
                      if (preemptorJob.equals(labels.get(preemptorLabel))
                          && pod.getSpec().getNodeName() != null
                          && !order.contains("preemptor bound")) {
                        order.add("preemptor bound");
                      }
                    }

                    @Override
                    public void onClose(WatcherException cause) {}
                  });
    }

    @Override
    public void close() {
      watch.close();
    }
  }
}
