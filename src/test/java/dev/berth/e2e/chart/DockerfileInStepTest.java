package dev.berth.e2e.chart;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * image/Dockerfile and scripts/image-build.sh build the same image: the script takes the image
 * configuration from the Dockerfile's final stage, and both make the root filesystem with
 * image/rootfs.sh from image/packages and image/jdk-modules. This keeps the Dockerfile from growing
 * its own copy of any of that, and both in step with the chart.
 */
class DockerfileInStepTest {
  /** The instructions of the final stage that scripts/image-build.sh turns into config. */
  private static final List<String> UNDERSTOOD =
      List.of("FROM", "COPY", "USER", "WORKDIR", "ENV", "EXPOSE", "LABEL", "ENTRYPOINT");

  private static String read(String path) throws IOException {
    return Files.readString(Repo.root().resolve(path));
  }

  private static List<String> instructions(String dockerfile) {
    List<String> lines = new ArrayList<>();
    StringBuilder current = new StringBuilder();
    for (String line : dockerfile.split("\n")) {
      if (current.isEmpty() && (line.isBlank() || line.startsWith("#"))) {
        continue;
      }
      if (line.endsWith("\\")) {
        current.append(line, 0, line.length() - 1).append(' ');
      } else {
        lines.add(current.append(line).toString().trim());
        current.setLength(0);
      }
    }
    return lines;
  }

  private static List<String> finalStage() throws IOException {
    List<String> all = instructions(read("image/Dockerfile"));
    int from = 0;
    for (int i = 0; i < all.size(); i++) {
      if (all.get(i).startsWith("FROM ")) {
        from = i;
      }
    }
    return all.subList(from, all.size());
  }

  @Test
  void theFinalStageHoldsOnlyWhatTheDaemonlessBuildReads() throws IOException {
    List<String> stage = finalStage();
    assertThat(stage.get(0)).isEqualTo("FROM scratch");
    String script = read("scripts/image-build.sh");
    for (String instruction : stage) {
      String keyword = instruction.split(" ", 2)[0];
      assertThat(UNDERSTOOD).as(instruction).contains(keyword);
      if (!List.of("FROM", "COPY").contains(keyword)) {
        assertThat(script).as("image-build.sh handles " + keyword).contains("    " + keyword + ")");
      }
    }
    // image-build.sh reads one NAME=value per ENV and LABEL line.
    assertThat(stage.stream().filter(i -> i.startsWith("ENV ")))
        .allMatch(i -> i.matches("ENV [A-Z_]+=\\S+"));
    assertThat(stage.stream().filter(i -> i.startsWith("LABEL ")))
        .allMatch(i -> i.matches("LABEL [a-z.]+=\"[^\"]*\""));
    // The final stage copies the root filesystem built with the shared script, nothing else.
    assertThat(stage.stream().filter(i -> i.startsWith("COPY ")))
        .containsExactly("COPY --from=build /rootfs/ /");
  }

  @Test
  void bothBuildTheRootFilesystemWithTheSharedScriptAndLists() throws IOException {
    List<String> build = instructions(read("image/Dockerfile"));
    String dockerfile = String.join("\n", build);
    assertThat(dockerfile)
        .contains("COPY image/ /src/image/")
        .contains("/src/image/rootfs.sh jlink /usr/lib/jvm/java-17-openjdk-amd64 /rootfs/opt/java")
        .contains("$(/src/image/rootfs.sh list /src/image/packages)")
        .contains("/src/image/rootfs.sh finish /rootfs")
        .contains("COPY operator/target/berth-operator.jar /rootfs/app/berth-operator.jar");
    String script = read("scripts/image-build.sh");
    assertThat(script)
        .contains("sh image/rootfs.sh jlink /usr/lib/jvm/java-17-openjdk-amd64 /opt/java")
        .contains("sh image/rootfs.sh list image/packages")
        .contains("sh image/rootfs.sh finish")
        .contains("app/berth-operator.jar");
    assertThat(read("image/rootfs.sh")).contains("$here/jdk-modules");
  }

  @Test
  void theImageRunsAsTheChartsUserOnTheChartsPorts() throws IOException {
    List<String> stage = finalStage();
    String values = read("helm/berth/values.yaml");
    Matcher uid = Pattern.compile("(?m)^  runAsUser: (\\d+)$").matcher(values);
    Matcher gid = Pattern.compile("(?m)^  runAsGroup: (\\d+)$").matcher(values);
    assertThat(uid.find() && gid.find()).isTrue();
    assertThat(stage).contains("USER " + uid.group(1) + ":" + gid.group(1));
    String deployment = read("helm/berth/templates/deployment.yaml");
    for (String port : List.of("8080", "9443")) {
      assertThat(deployment).contains("containerPort: " + port);
      assertThat(stage).contains("EXPOSE " + port + "/tcp");
    }
    assertThat(stage)
        .contains("ENTRYPOINT [\"/opt/java/bin/java\", \"-jar\", \"/app/berth-operator.jar\"]");
  }
}
