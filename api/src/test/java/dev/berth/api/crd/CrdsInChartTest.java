package dev.berth.api.crd;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The chart ships the CRDs the build generates, byte for byte. When the model changes, refresh the
 * chart with: ./mvnw -pl api -Pupdate-crds process-classes
 */
class CrdsInChartTest {
  private static final Path GENERATED = Path.of(System.getProperty("berth.crds.generated"));
  private static final Path CHART = Path.of(System.getProperty("berth.crds.chart"));

  @Test
  void chartHoldsExactlyTheGeneratedCrds() throws IOException {
    List<String> generated = crdFiles(GENERATED);
    assertThat(generated).hasSize(dev.berth.api.v1beta1.BerthKinds.ALL.size());
    assertThat(crdFiles(CHART))
        .as("CRD files in helm/berth/crds (refresh: ./mvnw -pl api -Pupdate-crds process-classes)")
        .containsExactlyInAnyOrderElementsOf(generated);
    for (String name : generated) {
      assertThat(Files.readString(CHART.resolve(name)))
          .as(
              "helm/berth/crds/%s drifted from the generated CRD;"
                  + " refresh with ./mvnw -pl api -Pupdate-crds process-classes",
              name)
          .isEqualTo(Files.readString(GENERATED.resolve(name)));
    }
  }

  private static List<String> crdFiles(Path dir) throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      return files
          .map(p -> p.getFileName().toString())
          .filter(n -> n.endsWith(".berth.dev-v1.yml"))
          .sorted()
          .toList();
    }
  }
}
