package dev.berth.e2e;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The fenced blocks of docs/migrating-from-kueue.md, found by a piece of their text, so that the
 * migration test runs the page's own YAML and commands, not copies of them that could drift.
 */
final class MigrationGuide {
  private static final Pattern BLOCK = Pattern.compile("```(yaml|sh)\\n(.*?)```", Pattern.DOTALL);

  private final String text;

  private MigrationGuide(String text) {
    this.text = text;
  }

  static MigrationGuide read() {
    Path page = Path.of(System.getProperty("berth.repo"), "docs", "migrating-from-kueue.md");
    try {
      return new MigrationGuide(Files.readString(page));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The one ```yaml block containing {@code piece}. */
  String yaml(String piece) {
    return block("yaml", piece);
  }

  /** The one ```sh block containing {@code piece}. */
  String sh(String piece) {
    return block("sh", piece);
  }

  private String block(String language, String piece) {
    List<String> found = new ArrayList<>();
    Matcher m = BLOCK.matcher(text);
    while (m.find()) {
      if (m.group(1).equals(language) && m.group(2).contains(piece)) {
        found.add(m.group(2));
      }
    }
    if (found.size() != 1) {
      throw new AssertionError(
          "docs/migrating-from-kueue.md has "
              + found.size()
              + " ```"
              + language
              + " blocks containing \""
              + piece
              + "\"; the test needs exactly one");
    }
    return found.get(0);
  }

  /**
   * The chart values of a {@code helm install} or {@code helm upgrade --reuse-values} block, each
   * {@code KEY=VALUE} of its {@code --set} flags, on top of {@code before} (what --reuse-values
   * keeps).
   */
  static Map<String, String> helmValues(String block, Map<String, String> before) {
    Map<String, String> values = new LinkedHashMap<>(before);
    List<String> words = words(block.replace("\\\n", " "));
    for (int i = 0; i < words.size() - 1; i++) {
      if (words.get(i).equals("--set")) {
        String value = words.get(i + 1);
        values.put(value.substring(0, value.indexOf('=')), value);
      }
    }
    return values;
  }

  /** Shell words: blanks separate, single quotes group (all the page's commands need). */
  private static List<String> words(String line) {
    List<String> words = new ArrayList<>();
    StringBuilder word = new StringBuilder();
    boolean quoted = false;
    boolean any = false;
    for (char c : line.toCharArray()) {
      if (c == '\'') {
        quoted = !quoted;
        any = true;
      } else if (!quoted && Character.isWhitespace(c)) {
        if (any) {
          words.add(word.toString());
          word.setLength(0);
          any = false;
        }
      } else {
        word.append(c);
        any = true;
      }
    }
    if (any) {
      words.add(word.toString());
    }
    return words;
  }
}
