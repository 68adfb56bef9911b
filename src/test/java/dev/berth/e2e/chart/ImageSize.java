package dev.berth.e2e.chart;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The image's size to pull, as the docs state it and as an OCI layout measures it: README's "about
 * N MB" must be docs/image.md's "About N MB to pull", and ImageInContainerIT holds that figure to
 * the image it built.
 */
final class ImageSize {
  private ImageSize() {}

  /** docs/image.md's figure, in MB. */
  static int documented() throws IOException {
    return figure(
        Files.readString(Repo.root().resolve("docs/image.md")),
        Pattern.compile("About (\\d+) MB to pull"));
  }

  /** README's figure, in MB. */
  static int inReadme() throws IOException {
    return figure(
        Files.readString(Repo.root().resolve("README.md")),
        Pattern.compile("The image \\(about (\\d+) MB\\)"));
  }

  private static int figure(String text, Pattern pattern) {
    Matcher m = pattern.matcher(text);
    if (!m.find()) {
      throw new AssertionError("no image size matching " + pattern);
    }
    return Integer.parseInt(m.group(1));
  }

  /** What a registry client pulls of the layout's image: its compressed layers, in MB (10^6). */
  static double measuredMb(Path layout) throws IOException {
    JsonNode index = Serialization.jsonMapper().readTree(layout.resolve("index.json").toFile());
    JsonNode manifest =
        Serialization.jsonMapper()
            .readTree(blob(layout, index.at("/manifests/0/digest").asText()).toFile());
    long bytes = 0;
    for (JsonNode layer : manifest.path("layers")) {
      bytes += layer.path("size").asLong();
    }
    return bytes / 1e6;
  }

  private static Path blob(Path layout, String digest) {
    String[] parts = digest.split(":", 2);
    return layout.resolve("blobs").resolve(parts[0]).resolve(parts[1]);
  }
}
