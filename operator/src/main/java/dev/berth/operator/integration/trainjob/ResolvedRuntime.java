package dev.berth.operator.integration.trainjob;

import dev.berth.operator.integration.jobset.JobSet;
import dev.berth.operator.kube.Copies;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.PodSchedulingGate;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The pods Kubeflow Trainer v2.0.0 runs for a TrainJob: its runtime's replicatedJobs, each with the
 * pod template and pod count of the JobSet the Trainer makes from it. Berth's own reading of the
 * Trainer's rules, in the order it applies them:
 *
 * <ol>
 *   <li>the TrainJob's {@code podSpecOverrides}, in order, into the templates of the replicatedJobs
 *       they target (a strategic merge: a nodeSelector's keys are added, tolerations replace the
 *       template's, scheduling gates are added by name);
 *   <li>each replicatedJob's pods per Job: its {@code parallelism} (1 if unset), but for the one
 *       labelled {@code trainer.kubeflow.org/trainjob-ancestor-step: trainer}, the ML policy's
 *       {@code numNodes} (1 if unset) when the runtime has an ML policy;
 *   <li>the TrainJob's {@code trainer.numNodes}, when set: the trainer replicatedJob's count under
 *       a Torch policy or none; under an MPI policy, the count of the replicatedJob named {@code
 *       node}, one less when the launcher runs as a node (at least 1);
 *   <li>the TrainJob's {@code trainer.resourcesPerNode}, when it has requests or limits: the
 *       resources of the trainer replicatedJob's container named {@code node}, replaced whole;
 *   <li>one Job of each initializer and trainer replicatedJob, the runtime's {@code replicas} (1 if
 *       unset) of any other, each running its pods per Job (the Trainer sets completions to the
 *       same count).
 * </ol>
 */
public record ResolvedRuntime(List<ReplicatedJob> replicatedJobs) {
  /** The label by which a runtime's replicatedJob says which part of a TrainJob it runs. */
  public static final String ANCESTOR_LABEL = "trainer.kubeflow.org/trainjob-ancestor-step";

  static final String TRAINER = "trainer";
  static final String NODE = "node";
  private static final List<String> ONE_JOB =
      List.of(TRAINER, "dataset-initializer", "model-initializer");

  /**
   * One replicatedJob of the JobSet the Trainer makes.
   *
   * @param podsPerJob the parallelism and completions of each of its Jobs
   * @param template the pod template of its Jobs, overrides merged in
   */
  public record ReplicatedJob(
      String name, String ancestor, int jobs, int podsPerJob, PodTemplateSpec template) {
    /** Every pod it runs: its Jobs times their pods. */
    public int pods() {
      return jobs * podsPerJob;
    }
  }

  /** The trainer replicatedJob, or null when the runtime labels none. */
  public ReplicatedJob trainer() {
    return replicatedJobs.stream()
        .filter(rj -> TRAINER.equals(rj.ancestor()))
        .findFirst()
        .orElse(null);
  }

  /** Resolves {@code runtime} with {@code trainJob}'s overrides; both are left as they are. */
  public static ResolvedRuntime of(TrainJob.Spec trainJob, RuntimeSpec runtime) {
    List<JobSet.ReplicatedJob> templates =
        runtime.template == null || runtime.template.spec == null
            ? null
            : runtime.template.spec.replicatedJobs;
    List<ReplicatedJob> out = new ArrayList<>();
    if (templates == null) {
      return new ResolvedRuntime(out);
    }
    RuntimeSpec.MlPolicy policy = runtime.mlPolicy;
    TrainJob.Trainer trainer = trainJob.trainer;
    Integer numNodes = trainer == null ? null : trainer.numNodes;
    for (JobSet.ReplicatedJob rj : templates) {
      var jobSpec = rj.template.getSpec();
      Map<String, String> labels =
          rj.template.getMetadata() == null ? null : rj.template.getMetadata().getLabels();
      String ancestor = labels == null ? null : labels.get(ANCESTOR_LABEL);
      PodTemplateSpec template = Copies.deep(jobSpec.getTemplate());
      if (template.getSpec() == null) {
        template.setSpec(new PodSpec());
      }
      applyOverrides(rj.name, trainJob.podSpecOverrides, template.getSpec());
      int count = jobSpec.getParallelism() == null ? 1 : jobSpec.getParallelism();
      if (TRAINER.equals(ancestor) && policy != null) {
        count = policy.numNodes == null ? 1 : policy.numNodes;
      }
      boolean mpi = policy != null && policy.mpi != null;
      if (numNodes != null) {
        if (!mpi && TRAINER.equals(ancestor)) {
          count = numNodes;
        } else if (mpi && NODE.equals(rj.name)) {
          count =
              Boolean.TRUE.equals(policy.mpi.runLauncherAsNode)
                  ? Math.max(numNodes - 1, 1)
                  : numNodes;
        }
      }
      if (TRAINER.equals(ancestor) && trainer != null) {
        applyResources(trainer.resourcesPerNode, template.getSpec());
      }
      int jobs =
          ancestor != null && ONE_JOB.contains(ancestor)
              ? 1
              : rj.replicas == null ? 1 : rj.replicas;
      out.add(new ReplicatedJob(rj.name, ancestor, jobs, count, template));
    }
    return new ResolvedRuntime(out);
  }

  /** The overrides that target {@code replicatedJob}, merged in list order. */
  static void applyOverrides(
      String replicatedJob, List<TrainJob.PodSpecOverride> overrides, PodSpec spec) {
    if (overrides == null) {
      return;
    }
    for (TrainJob.PodSpecOverride override : overrides) {
      boolean targets =
          override.targetJobs != null
              && override.targetJobs.stream().anyMatch(t -> replicatedJob.equals(t.name));
      if (!targets) {
        continue;
      }
      if (override.nodeSelector != null) {
        Map<String, String> selector =
            new LinkedHashMap<>(spec.getNodeSelector() == null ? Map.of() : spec.getNodeSelector());
        selector.putAll(override.nodeSelector);
        spec.setNodeSelector(selector);
      }
      if (override.tolerations != null) {
        spec.setTolerations(
            new ArrayList<>(override.tolerations.stream().map(Copies::deep).toList()));
      }
      if (override.schedulingGates != null) {
        List<PodSchedulingGate> gates =
            new ArrayList<>(
                spec.getSchedulingGates() == null ? List.of() : spec.getSchedulingGates());
        for (PodSchedulingGate gate : override.schedulingGates) {
          if (gates.stream().noneMatch(g -> g.getName().equals(gate.getName()))) {
            gates.add(Copies.deep(gate));
          }
        }
        spec.setSchedulingGates(gates);
      }
    }
  }

  /**
   * The trainer's per-node resources into its {@code node} container, replacing its own whole, as
   * the Trainer's apply does (a limit without a request stays so; the API server makes the request
   * of the pod from it).
   */
  private static void applyResources(ResourceRequirements perNode, PodSpec spec) {
    if (perNode == null
        || (perNode.getLimits() == null && perNode.getRequests() == null)
        || spec.getContainers() == null) {
      return;
    }
    for (Container container : spec.getContainers()) {
      if (NODE.equals(container.getName())) {
        ResourceRequirements resources = new ResourceRequirements();
        resources.setLimits(
            perNode.getLimits() == null ? null : new LinkedHashMap<>(perNode.getLimits()));
        resources.setRequests(
            perNode.getRequests() == null ? null : new LinkedHashMap<>(perNode.getRequests()));
        container.setResources(resources);
      }
    }
  }
}
