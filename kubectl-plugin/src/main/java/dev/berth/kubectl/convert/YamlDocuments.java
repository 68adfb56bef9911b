package dev.berth.kubectl.convert;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;

/** Multi-document YAML in and out, as kubectl reads it. */
public final class YamlDocuments {
  private static final ObjectMapper READER = new YAMLMapper();

  // Strings that read as numbers or booleans are quoted, so a label value "600" stays a string.
  private static final ObjectMapper WRITER =
      new ObjectMapper(
          YAMLFactory.builder()
              .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES)
              .enable(YAMLGenerator.Feature.ALWAYS_QUOTE_NUMBERS_AS_STRINGS)
              .enable(YAMLGenerator.Feature.LITERAL_BLOCK_STYLE)
              .disable(YAMLGenerator.Feature.SPLIT_LINES)
              .build());

  private YamlDocuments() {}

  /** Every non-empty document of the stream; a document that is not a mapping is kept as read. */
  public static List<JsonNode> read(InputStream in) throws IOException {
    List<JsonNode> docs = new ArrayList<>();
    try (MappingIterator<JsonNode> it = READER.readerFor(JsonNode.class).readValues(in)) {
      while (it.hasNextValue()) {
        JsonNode doc = it.nextValue();
        if (doc != null && !doc.isNull() && !doc.isMissingNode()) {
          docs.add(doc);
        }
      }
    }
    return docs;
  }

  /** The documents as one stream, each starting with {@code ---}. */
  public static String write(List<? extends JsonNode> docs) {
    StringBuilder out = new StringBuilder();
    for (JsonNode doc : docs) {
      try {
        String yaml = WRITER.writeValueAsString(doc);
        out.append(yaml.startsWith("---") ? "" : "---\n").append(yaml);
      } catch (IOException e) {
        throw new IllegalStateException(e);
      }
    }
    return out.toString();
  }
}
