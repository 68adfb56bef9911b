package dev.berth.bench.topology;

import dev.berth.engine.topology.NodeInventory;
import dev.berth.engine.topology.Placement;
import dev.berth.engine.topology.Topology;
import dev.berth.engine.topology.TopologyNode;
import dev.berth.engine.topology.TopologyPlacer;
import dev.berth.engine.topology.TopologyRequest;
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
 * Placing one 64-pod podSet (1 GPU, 8 cpu each) over 1,000 nodes: 4 blocks × 10 racks × 25 nodes of
 * 8 GPUs, every node partly used by bound pods (0–7 GPUs, fixed seed). The placement is computed
 * but not added, so every operation sees the same inventory. Target: at most 5 ms.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@State(Scope.Thread)
public class TopologyPlacementBenchmark {
  static final String GPU = "nvidia.com/gpu";
  static final String BLOCK = "topology.berth.dev/block";
  static final String RACK = "topology.berth.dev/rack";
  static final Map<String, Long> POD = Map.of(GPU, 1L, "cpu", 8_000L);

  @Param({
    "required-rack",
    "preferred-rack",
    "unconstrained",
    "required-block-slices-of-8-per-host"
  })
  public String mode;

  private NodeInventory inventory;
  private TopologyRequest request;
  private final TopologyPlacer placer = new TopologyPlacer();

  @Setup
  public void setUp() {
    Topology topology = Topology.of("bench", BLOCK, RACK, Topology.HOSTNAME);
    NodeInventory.Builder b = NodeInventory.builder(topology);
    SplittableRandom random = new SplittableRandom(42);
    for (int block = 0; block < 4; block++) {
      for (int rack = 0; rack < 10; rack++) {
        for (int node = 0; node < 25; node++) {
          String name = "b" + block + "-r" + rack + "-n" + node;
          b.node(
              TopologyNode.named(name)
                  .label(BLOCK, "b" + block)
                  .label(RACK, "r" + rack)
                  .allocatable(GPU, 8)
                  .allocatable("cpu", "96")
                  .allocatable("memory", "1Ti")
                  .build());
          long used = random.nextInt(8);
          b.boundPod(name, Map.of(GPU, used, "cpu", used * 8_000L));
        }
      }
    }
    inventory = b.build();
    request =
        switch (mode) {
          case "required-rack" -> TopologyRequest.required(RACK);
          case "preferred-rack" -> TopologyRequest.preferred(RACK);
          case "unconstrained" -> TopologyRequest.unconstrained();
          default -> TopologyRequest.required(BLOCK).inSlices(8, Topology.HOSTNAME);
        };
    Placement check = placer.place(inventory, 64, POD, request);
    if (!check.isPlaced()) {
      throw new IllegalStateException("bench cluster must fit the podSet: " + check.message());
    }
  }

  @Benchmark
  public Placement place64Pods() {
    return placer.place(inventory, 64, POD, request);
  }
}
