package dev.berth.e2e;

import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The ```yaml blocks of README.md, each with the line of its opening fence. A block that starts
 * indented is a fragment of the README's Job (its pod template), not an object of its own.
 */
public final class ReadmeBlocks {
  private static final Pattern YAML_BLOCK = Pattern.compile("```yaml\\n(.*?)```", Pattern.DOTALL);

  private ReadmeBlocks() {}

  /** One block: the README line of its ```yaml fence and its text. */
  public record Block(int line, String yaml) {
    public boolean isFragment() {
      return yaml.startsWith(" ");
    }

    @Override
    public String toString() {
      return "README.md line " + line;
    }
  }

  public static Path readme() {
    return Path.of(System.getProperty("berth.repo"), "README.md");
  }

  public static List<Block> all() {
    String readme;
    try {
      readme = Files.readString(readme());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    List<Block> blocks = new ArrayList<>();
    Matcher m = YAML_BLOCK.matcher(readme);
    while (m.find()) {
      int line = 1 + (int) readme.substring(0, m.start()).chars().filter(c -> c == '\n').count();
      blocks.add(new Block(line, m.group(1)));
    }
    return blocks;
  }

  /** The README's Job with the fragment's keys merged into its spec, under a name of its own. */
  @SuppressWarnings("unchecked")
  public static Job withFragment(Job job, String fragment, String name) {
    Map<String, Object> jobMap = Serialization.unmarshal(Serialization.asYaml(job), Map.class);
    Map<String, Object> piece = Serialization.unmarshal(fragment.stripIndent(), Map.class);
    merge((Map<String, Object>) jobMap.get("spec"), piece);
    Map<String, Object> metadata = (Map<String, Object>) jobMap.get("metadata");
    metadata.put("name", name);
    metadata.remove("resourceVersion");
    metadata.remove("uid");
    metadata.remove("managedFields");
    metadata.remove("creationTimestamp");
    return Serialization.unmarshal(Serialization.asYaml(jobMap), Job.class);
  }

  @SuppressWarnings("unchecked")
  private static void merge(Map<String, Object> into, Map<String, Object> from) {
    from.forEach(
        (key, value) -> {
          if (value instanceof Map<?, ?> m && into.get(key) instanceof Map<?, ?> existing) {
            merge((Map<String, Object>) existing, (Map<String, Object>) m);
          } else {
            into.put(key, value);
          }
        });
  }
}
