package dev.berth.e2e.chart;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.Quantity;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The chart's memory settings keep the operator inside its container's limit: the heap a real JVM
 * derives from the rendered JAVA_TOOL_OPTIONS and memory limit, plus the non-heap peak measured on
 * the load benchmark (docs/benchmarks.md, "Operator memory"), fits under the limit. And the image's
 * built-in defaults are exactly the chart's, so the same budget holds where the chart's are not
 * set.
 */
class ChartMemoryBudgetIT {
  private static final long MIB = 1024 * 1024;

  /**
   * The operator's resident memory beyond its heap at peak, measured with the GC the chart names
   * (peak RSS minus the heap's touched pages on the 810-workload runs: metaspace ~50 MiB, code
   * cache ~35, thread stacks ~12, symbols ~10, direct buffers ~16, the class-data archive ~12,
   * malloc arenas the rest). The heap itself is counted at its maximum, which a Serial-collected
   * heap reaches when the live objects need it.
   */
  private static final long NON_HEAP_PEAK_MIB = 190;

  /**
   * The share of the limit heap + non-heap may fill: the rest is headroom, since malloc's and the
   * JIT's arenas vary from run to run and 190 MiB is one load's peak. (The old default, 75% of 1
   * GiB, gave 768 + 190 = 958 MiB: inside the limit, but with nothing to spare.)
   */
  private static final double FILL = 0.85;

  static Stream<Arguments> limits() {
    return Stream.of(
        Arguments.of("defaults", new String[0]),
        Arguments.of("a 2 GiB limit", new String[] {"--set", "resources.limits.memory=2Gi"}));
  }

  @ParameterizedTest(name = "{0}: heap + non-heap peak fits the memory limit")
  @MethodSource("limits")
  void heapPlusNonHeapFitsTheLimit(String name, String[] values) throws Exception {
    JsonNode container =
        Manifests.json(
                Manifests.one(
                    Manifests.parse(HelmCli.template("berth", "berth-system", values)),
                    "Deployment"))
            .at("/spec/template/spec/containers/0");
    long limit =
        Quantity.getAmountInBytes(new Quantity(container.at("/resources/limits/memory").asText()))
            .longValueExact();
    String options = javaToolOptions(container);

    JvmFlags flags = JvmFlags.of(options, limit);

    assertThat(flags.serialGc())
        .as("the non-heap budget is measured with the Serial collector; G1's tables are larger")
        .isTrue();
    assertThat(flags.maxHeap() + NON_HEAP_PEAK_MIB * MIB)
        .as(
            "max heap %d MiB + non-heap %d MiB within %.0f%% of the limit %d MiB (%s)",
            flags.maxHeap() / MIB, NON_HEAP_PEAK_MIB, FILL * 100, limit / MIB, options)
        .isLessThanOrEqualTo((long) (limit * FILL));
  }

  @Test
  void theImageDefaultsToTheChartsMemorySettings() throws IOException {
    String rootfs = Files.readString(Repo.root().resolve("image/rootfs.sh"));
    // JVM_OPTIONS is built over several lines, each adding to the last: all of them together.
    Matcher image = Pattern.compile("JVM_OPTIONS=\"([^\"]*)\"").matcher(rootfs);
    List<String> imageOptions = new ArrayList<>();
    while (image.find()) {
      for (String option : image.group(1).trim().split("\\s+")) {
        if (!option.equals("$JVM_OPTIONS")) {
          imageOptions.add(option);
        }
      }
    }
    assertThat(imageOptions).as("JVM_OPTIONS in image/rootfs.sh").isNotEmpty();
    JsonNode container =
        Manifests.json(
                Manifests.one(
                    Manifests.parse(HelmCli.template("berth", "berth-system")), "Deployment"))
            .at("/spec/template/spec/containers/0");

    // The same options, no more: a flag dropped from the chart's defaults (as C2's inlining budget
    // was, docs/helm.md#jvm-options) must not stay behind in the image. The image's one addition
    // is UTF-8 text, which the chart leaves to it.
    List<String> imageBeyondUtf8 =
        imageOptions.stream().filter(o -> !o.equals("-Dfile.encoding=UTF-8")).toList();
    assertThat(imageBeyondUtf8)
        .containsExactlyInAnyOrderElementsOf(List.of(javaToolOptions(container).split("\\s+")));
  }

  private static String javaToolOptions(JsonNode container) {
    for (JsonNode e : container.path("env")) {
      if (e.path("name").asText().equals("JAVA_TOOL_OPTIONS")) {
        return e.path("value").asText();
      }
    }
    throw new AssertionError("no JAVA_TOOL_OPTIONS in the operator container");
  }

  /** What a JVM started with {@code options} in a container of {@code limit} bytes would use. */
  private record JvmFlags(long maxHeap, boolean serialGc) {
    static JvmFlags of(String options, long limit) throws IOException, InterruptedException {
      List<String> command = new ArrayList<>();
      command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
      command.addAll(List.of(options.trim().split("\\s+")));
      // The container's cgroup limit is what the JVM sizes from; MaxRAM stands in for it here.
      command.addAll(List.of("-XX:MaxRAM=" + limit, "-XX:+PrintFlagsFinal", "-version"));
      Process java = new ProcessBuilder(command).redirectErrorStream(true).start();
      String out = new String(java.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(java.waitFor(60, TimeUnit.SECONDS)).isTrue();
      assertThat(java.exitValue()).as(out).isZero();
      return new JvmFlags(
          Long.parseLong(flag(out, "MaxHeapSize")), flag(out, "UseSerialGC").equals("true"));
    }

    private static String flag(String printFlagsFinal, String name) {
      Matcher m = Pattern.compile("\\s" + name + "\\s+=\\s+(\\S+)").matcher(printFlagsFinal);
      assertThat(m.find()).as(name + " in -XX:+PrintFlagsFinal").isTrue();
      return m.group(1);
    }
  }
}
