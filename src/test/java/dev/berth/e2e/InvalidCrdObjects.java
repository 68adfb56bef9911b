package dev.berth.e2e;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/**
 * The corpus of objects the CRD schema alone must refuse: one YAML file per broken rule under
 * src/test/resources/invalid/crd, each opening with the field path and message it expects.
 */
final class InvalidCrdObjects {
  record Case(String name, String yaml, String path, String message) {}

  private InvalidCrdObjects() {}

  static List<Case> all() {
    Path dir = Path.of(System.getProperty("berth.repo", "."), "src/test/resources/invalid/crd");
    try (Stream<Path> files = Files.list(dir)) {
      return files
          .filter(f -> f.toString().endsWith(".yaml"))
          .sorted()
          .map(InvalidCrdObjects::read)
          .toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static Case read(Path file) {
    try {
      String yaml = Files.readString(file);
      return new Case(
          file.getFileName().toString().replace(".yaml", ""),
          yaml,
          header(yaml, "# expect-path:", file),
          header(yaml, "# expect-message:", file));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String header(String yaml, String key, Path file) {
    return yaml.lines()
        .filter(l -> l.startsWith(key))
        .map(l -> l.substring(key.length()).trim())
        .findFirst()
        .orElseThrow(() -> new IllegalStateException(file + " lacks a '" + key + "' line"));
  }
}
