package dev.berth.kubectl;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code kubectl berth convert}: inputs, outputs and exit codes. */
class ConvertCommandTest {
  private static final String QUEUE =
      """
      apiVersion: kueue.x-k8s.io/v1beta1
      kind: LocalQueue
      metadata: {name: %s, namespace: team-a}
      spec: {clusterQueue: cq}
      """;

  @TempDir Path dir;

  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();

  private int run(InputStream stdin, String... argv) throws Options.UsageError {
    return ConvertCommand.run(
        Options.parse(argv, false),
        stdin,
        new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
  }

  private int run(String... argv) throws Options.UsageError {
    return run(InputStream.nullInputStream(), argv);
  }

  private String out() {
    return out.toString(StandardCharsets.UTF_8);
  }

  private String err() {
    return err.toString(StandardCharsets.UTF_8);
  }

  @Test
  void aFileIsConvertedToStdout() throws Exception {
    Path file = Files.writeString(dir.resolve("q.yaml"), QUEUE.formatted("a"));
    assertThat(run("convert", "-f", file.toString())).isZero();
    assertThat(out())
        .isEqualTo(
            """
            ---
            apiVersion: berth.dev/v1beta1
            kind: LocalQueue
            metadata:
              name: a
              namespace: team-a
            spec:
              clusterQueue: cq
            """);
    assertThat(err()).isEmpty();
  }

  @Test
  void stdinIsReadFromDash() throws Exception {
    assertThat(
            run(
                new ByteArrayInputStream(QUEUE.formatted("s").getBytes(StandardCharsets.UTF_8)),
                "convert",
                "-f",
                "-"))
        .isZero();
    assertThat(out()).contains("name: s");
  }

  @Test
  void aDirectorysYamlAndJsonFilesAreReadInNameOrderAndSubdirectoriesOnlyWithR() throws Exception {
    Files.writeString(dir.resolve("b.yml"), QUEUE.formatted("b"));
    Files.writeString(dir.resolve("a.yaml"), QUEUE.formatted("a"));
    Files.writeString(
        dir.resolve("c.json"),
        "{\"apiVersion\":\"kueue.x-k8s.io/v1beta2\",\"kind\":\"ResourceFlavor\","
            + "\"metadata\":{\"name\":\"c\"}}");
    Files.writeString(dir.resolve("notes.txt"), "not yaml: [");
    Files.createDirectories(dir.resolve("sub"));
    Files.writeString(dir.resolve("sub/d.yaml"), QUEUE.formatted("d"));
    assertThat(run("convert", "-f", dir.toString())).isZero();
    assertThat(out().lines().filter(l -> l.startsWith("  name: ")).toList())
        .containsExactly("  name: a", "  name: b", "  name: c");
    out.reset();
    assertThat(run("convert", "-R", "-f", dir.toString())).isZero();
    assertThat(out()).contains("name: d");
  }

  @Test
  void unreadableInputFailsTheCommandButTheRestIsConverted() throws Exception {
    Path good = Files.writeString(dir.resolve("good.yaml"), QUEUE.formatted("g"));
    Path bad = Files.writeString(dir.resolve("bad.yaml"), "a: [unclosed\n");
    assertThat(
            run(
                "convert",
                "-f",
                dir.resolve("missing.yaml").toString(),
                "-f",
                bad.toString(),
                "-f",
                good.toString()))
        .isEqualTo(1);
    assertThat(out()).contains("name: g");
    assertThat(err())
        .contains("error: " + dir.resolve("missing.yaml") + ": no such file or directory")
        .contains("error: " + bad + ": not YAML");
  }

  @Test
  void whatCannotBeCarriedOverIsOnStderrAndDoesNotFailTheCommand() throws Exception {
    Path file =
        Files.writeString(
            dir.resolve("mk.yaml"),
            """
            apiVersion: kueue.x-k8s.io/v1beta2
            kind: MultiKueueCluster
            metadata: {name: w1}
            """);
    assertThat(run("convert", "-f", file.toString())).isZero();
    assertThat(out()).isEmpty();
    assertThat(err())
        .isEqualTo(
            file
                + ": multikueuecluster/w1: not converted: Berth has no MultiKueue: it admits"
                + " workloads in its own cluster only\n");
  }

  @Test
  void withoutAFileTheCommandLineIsWrong() throws Exception {
    assertThat(run("convert")).isEqualTo(2);
    assertThat(err()).startsWith("error: convert needs -f FILE");
  }

  @Test
  void helpListsConvert() throws IOException {
    assertThat(Options.USAGE).contains("convert -f FILE|DIR|-").contains("-R, --recursive");
  }
}
