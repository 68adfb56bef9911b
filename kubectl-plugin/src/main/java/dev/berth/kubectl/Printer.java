package dev.berth.kubectl;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.Map;
import java.util.regex.Pattern;

/** {@code -o json} and {@code -o yaml} of a command's data (YAML written here: no YAML library). */
final class Printer {
  private static final Pattern PLAIN = Pattern.compile("[A-Za-z_/][A-Za-z0-9_./ -]*");

  private Printer() {}

  static String print(JsonNode data, String format) {
    if ("yaml".equals(format)) {
      StringBuilder out = new StringBuilder();
      yaml(out, data, 0);
      return out.toString();
    }
    try {
      return Kubectl.JSON.writerWithDefaultPrettyPrinter().writeValueAsString(data) + "\n";
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  private static void yaml(StringBuilder out, JsonNode node, int indent) {
    String pad = " ".repeat(indent);
    if (node.isObject()) {
      if (node.isEmpty()) {
        out.append(pad).append("{}\n");
      }
      for (Map.Entry<String, JsonNode> e : node.properties()) {
        out.append(pad).append(scalar(e.getKey())).append(':');
        value(out, e.getValue(), indent);
      }
    } else if (node.isArray()) {
      if (node.isEmpty()) {
        out.append(pad).append("[]\n");
      }
      for (JsonNode item : node) {
        out.append(pad).append('-');
        if (item.isContainerNode() && !item.isEmpty()) {
          StringBuilder inner = new StringBuilder();
          yaml(inner, item, indent + 2);
          out.append(' ').append(inner.substring(indent + 2));
        } else {
          value(out, item, indent);
        }
      }
    } else {
      out.append(pad).append(scalar(node)).append('\n');
    }
  }

  private static void value(StringBuilder out, JsonNode v, int indent) {
    if (v.isContainerNode() && !v.isEmpty()) {
      out.append('\n');
      yaml(out, v, indent + 2);
    } else {
      out.append(' ')
          .append(v.isContainerNode() ? (v.isArray() ? "[]" : "{}") : scalar(v))
          .append('\n');
    }
  }

  private static String scalar(JsonNode v) {
    if (v.isNull()) {
      return "null";
    }
    if (v.isNumber() || v.isBoolean()) {
      return v.asText();
    }
    return scalar(v.asText());
  }

  private static String scalar(String s) {
    boolean reserved =
        s.equals("true")
            || s.equals("false")
            || s.equals("null")
            || s.equals("yes")
            || s.equals("no")
            || s.equals("on")
            || s.equals("off");
    if (!reserved && PLAIN.matcher(s).matches() && !s.endsWith(" ")) {
      return s;
    }
    return Kubectl.JSON.getNodeFactory().textNode(s).toString();
  }
}
