package dev.berth.e2e.webhook;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/**
 * The objects the webhooks (or the schema before them) must refuse: one YAML file per broken rule
 * under src/test/resources/invalid/webhook, opening with the field path and a fragment of the
 * message expected. File prefixes name the kind; "-w" files break a rule only the webhook checks,
 * "-c" files one the CRD schema checks too (the validators must agree with it).
 */
final class WebhookCorpus {
  static final String NAMESPACE = "webhook-corpus";

  record Case(String name, String yaml, String path, String message) {
    @Override
    public String toString() {
      return name;
    }
  }

  private WebhookCorpus() {}

  static List<Case> all() {
    Path dir = Path.of(System.getProperty("berth.repo", "."), "src/test/resources/invalid/webhook");
    try (Stream<Path> files = Files.list(dir)) {
      return files
          .filter(f -> f.toString().endsWith(".yaml"))
          .sorted()
          .map(WebhookCorpus::read)
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
          yaml.replace("NAMESPACE", NAMESPACE),
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
