package dev.berth.bench.topology;

import dev.berth.engine.AdmissionEngine;
import dev.berth.engine.CycleResult;
import dev.berth.engine.model.ClusterQueue;
import dev.berth.engine.model.FlavorQuotas;
import dev.berth.engine.model.LabelSelector;
import dev.berth.engine.model.LocalQueue;
import dev.berth.engine.model.PodSet;
import dev.berth.engine.model.ResourceFlavor;
import dev.berth.engine.model.ResourceGroup;
import dev.berth.engine.model.ResourceQuota;
import dev.berth.engine.model.StopPolicy;
import dev.berth.engine.model.Workload;
import dev.berth.engine.topology.Topology;
import dev.berth.engine.topology.TopologyNode;
import dev.berth.engine.topology.TopologyRequest;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * The whole admission of one topology-aware workload through the engine, over the same 1,000 nodes
 * as {@link TopologyPlacementBenchmark}: submit a 64-pod podSet, run a cycle (flavor assignment,
 * placement, quota), then finish it (placement and quota released), so every operation starts from
 * the same cluster.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@State(Scope.Thread)
public class TopologyAdmissionBenchmark {
  private static final String GPU = TopologyPlacementBenchmark.GPU;
  private static final String BLOCK = TopologyPlacementBenchmark.BLOCK;
  private static final String RACK = TopologyPlacementBenchmark.RACK;

  @Param({"required-rack", "unconstrained"})
  public String mode;

  private AdmissionEngine engine;
  private TopologyRequest request;
  private long next;

  @Setup
  public void setUp() {
    engine = new AdmissionEngine();
    engine.upsertTopology(Topology.of("bench", BLOCK, RACK, Topology.HOSTNAME));
    engine.upsertResourceFlavor(
        new ResourceFlavor("h100", Map.of(), List.of(), List.of(), "bench"));
    engine.upsertNamespace("bench", Map.of());
    engine.upsertClusterQueue(
        new ClusterQueue(
            "cq",
            null,
            List.of(
                new ResourceGroup(
                    List.of(GPU, "cpu"),
                    List.of(
                        new FlavorQuotas(
                            "h100",
                            List.of(
                                new ResourceQuota(GPU, 8_000, null, null),
                                new ResourceQuota("cpu", 96_000_000, null, null)))))),
            null,
            LabelSelector.ALL,
            null,
            null,
            StopPolicy.None));
    engine.upsertLocalQueue(new LocalQueue("bench", "lq", "cq", StopPolicy.None));
    SplittableRandom random = new SplittableRandom(42);
    for (int block = 0; block < 4; block++) {
      for (int rack = 0; rack < 10; rack++) {
        for (int node = 0; node < 25; node++) {
          String name = "b" + block + "-r" + rack + "-n" + node;
          engine.upsertNode(
              TopologyNode.named(name)
                  .label(BLOCK, "b" + block)
                  .label(RACK, "r" + rack)
                  .label(Topology.HOSTNAME, name)
                  .allocatable(GPU, 8)
                  .allocatable("cpu", "96")
                  .allocatable("memory", "1Ti")
                  .build());
          long used = random.nextInt(8);
          engine.upsertBoundPod("pod-" + name, name, Map.of(GPU, used, "cpu", used * 8_000L));
        }
      }
    }
    request =
        mode.equals("required-rack")
            ? TopologyRequest.required(RACK)
            : TopologyRequest.unconstrained();
    if (admitAndFinish().admissions().isEmpty()) {
      throw new IllegalStateException("bench cluster must admit the workload");
    }
  }

  @Benchmark
  public CycleResult admit64PodsAndFinish() {
    return admitAndFinish();
  }

  private CycleResult admitAndFinish() {
    String uid = "w" + next++;
    engine.upsertWorkload(
        new Workload(
            uid,
            "bench",
            uid,
            "lq",
            0,
            next,
            List.of(
                new PodSet(
                    "main", 64, null, Map.of(GPU, 1L, "cpu", 8_000L), null, null, null, request))));
    CycleResult result = engine.runCycle(next);
    engine.workloadFinished(uid);
    return result;
  }
}
