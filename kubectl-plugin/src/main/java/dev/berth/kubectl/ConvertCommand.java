package dev.berth.kubectl;

import com.fasterxml.jackson.databind.JsonNode;
import dev.berth.kubectl.convert.Finding;
import dev.berth.kubectl.convert.KueueConverter;
import dev.berth.kubectl.convert.YamlDocuments;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * {@code kubectl berth convert -f FILE|DIR|-}: Berth's YAML on stdout, one line per finding on
 * stderr. Only unreadable input fails the command; the rest is still converted.
 */
final class ConvertCommand {
  private ConvertCommand() {}

  /** 0 when every input was read, 1 otherwise; 2 with no {@code -f}. */
  static int run(Options o, InputStream stdin, PrintStream out, PrintStream err) {
    if (o.files().isEmpty()) {
      err.println("error: convert needs -f FILE, -f DIR or -f - (stdin)\n\n" + Options.USAGE);
      return 2;
    }
    KueueConverter converter = new KueueConverter();
    List<JsonNode> documents = new ArrayList<>();
    int code = 0;
    for (String name : o.files()) {
      List<Path> files;
      try {
        files = name.equals("-") ? null : inputs(Path.of(name), o.recursive());
      } catch (java.nio.file.NoSuchFileException e) {
        err.println("error: " + name + ": no such file or directory");
        code = 1;
        continue;
      } catch (IOException e) {
        err.println("error: " + name + ": cannot be read: " + e.getMessage());
        code = 1;
        continue;
      }
      if (files == null) {
        code |= convert(converter, "-", stdin, documents, err);
        continue;
      }
      for (Path file : files) {
        try (InputStream in = Files.newInputStream(file)) {
          code |= convert(converter, file.toString(), in, documents, err);
        } catch (IOException e) {
          err.println("error: " + file + ": cannot be read: " + e.getMessage());
          code = 1;
        }
      }
    }
    out.print(YamlDocuments.write(documents));
    return code;
  }

  private static int convert(
      KueueConverter converter,
      String source,
      InputStream in,
      List<JsonNode> documents,
      PrintStream err) {
    List<JsonNode> read;
    try {
      read = YamlDocuments.read(in);
    } catch (IOException e) {
      err.println("error: " + source + ": not YAML: " + firstLine(e.getMessage()));
      return 1;
    }
    KueueConverter.Result result = converter.convert(source, read);
    documents.addAll(result.documents());
    for (Finding finding : result.findings()) {
      err.println(finding);
    }
    return 0;
  }

  /** A file, or a directory's YAML and JSON files in name order (as kubectl apply -f DIR). */
  static List<Path> inputs(Path path, boolean recursive) throws IOException {
    if (!Files.isDirectory(path)) {
      if (!Files.isReadable(path)) {
        throw new java.nio.file.NoSuchFileException(path.toString());
      }
      return List.of(path);
    }
    try (Stream<Path> files = recursive ? Files.walk(path) : Files.list(path)) {
      return files
          .filter(Files::isRegularFile)
          .filter(p -> p.toString().matches(".*\\.(yaml|yml|json)$"))
          .sorted()
          .toList();
    }
  }

  private static String firstLine(String message) {
    return message == null ? "" : message.lines().findFirst().orElse("");
  }
}
