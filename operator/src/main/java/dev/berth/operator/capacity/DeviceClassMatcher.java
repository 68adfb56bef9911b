package dev.berth.operator.capacity;

import io.fabric8.kubernetes.api.model.resource.v1.DeviceClass;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceSelector;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Which published devices a DeviceClass selects, for counting a flavor's DRA capacity. Berth runs
 * no CEL interpreter: it reads the form DRA drivers write their classes in, each CEL selector a
 * conjunction ({@code &&}) of equalities
 *
 * <ul>
 *   <li>{@code device.driver == "gpu.example.com"};
 *   <li>{@code device.attributes["gpu.nvidia.com"].type == "gpu"} (a string, {@code true}/{@code
 *       false}, or an integer).
 * </ul>
 *
 * A class without selectors selects every device. A class with any other selector is not read
 * ({@link #of} is empty): its devices are not counted rather than guessed at (docs/dra.md).
 */
public final class DeviceClassMatcher {
  private static final String LITERAL = "('[^']*'|\"[^\"]*\"|true|false|-?[0-9]+)";
  private static final Pattern DRIVER = Pattern.compile("device\\.driver\\s*==\\s*" + LITERAL);
  private static final Pattern ATTRIBUTE =
      Pattern.compile(
          "device\\.attributes\\[\\s*(?:'([^']+)'|\"([^\"]+)\")\\s*\\]\\.([A-Za-z_][A-Za-z0-9_]*)"
              + "\\s*==\\s*"
              + LITERAL);

  /** A device as a ResourceSlice publishes it: its driver, and attributes by qualified name. */
  public record PublishedDevice(String driver, Map<String, Object> attributes) {
    public PublishedDevice {
      attributes = Map.copyOf(attributes);
    }
  }

  /** One equality: on the driver when {@code attribute} is null, else on that attribute. */
  private record Term(String attribute, Object value) {}

  private final List<Term> terms;

  private DeviceClassMatcher(List<Term> terms) {
    this.terms = List.copyOf(terms);
  }

  /** The class's matcher, or empty when a selector is not of the form read. */
  public static Optional<DeviceClassMatcher> of(DeviceClass deviceClass) {
    List<Term> terms = new ArrayList<>();
    var spec = deviceClass.getSpec();
    List<DeviceSelector> selectors =
        spec == null || spec.getSelectors() == null ? List.of() : spec.getSelectors();
    for (DeviceSelector selector : selectors) {
      String expression = selector.getCel() == null ? null : selector.getCel().getExpression();
      if (expression == null) {
        return Optional.empty();
      }
      for (String part : unwrap(expression.trim()).split("&&", -1)) {
        Optional<Term> term = term(unwrap(part.trim()));
        if (term.isEmpty()) {
          return Optional.empty();
        }
        terms.add(term.get());
      }
    }
    return Optional.of(new DeviceClassMatcher(terms));
  }

  /** Whether the class selects the device. */
  public boolean selects(PublishedDevice device) {
    for (Term t : terms) {
      Object actual =
          t.attribute() == null ? device.driver() : device.attributes().get(t.attribute());
      if (!t.value().equals(actual)) {
        return false;
      }
    }
    return true;
  }

  private static Optional<Term> term(String text) {
    Matcher driver = DRIVER.matcher(text);
    if (driver.matches()) {
      return Optional.of(new Term(null, literal(driver.group(1))));
    }
    Matcher attribute = ATTRIBUTE.matcher(text);
    if (attribute.matches()) {
      String domain = attribute.group(1) != null ? attribute.group(1) : attribute.group(2);
      return Optional.of(new Term(domain + "/" + attribute.group(3), literal(attribute.group(4))));
    }
    return Optional.empty();
  }

  private static Object literal(String text) {
    if (text.startsWith("'") || text.startsWith("\"")) {
      return text.substring(1, text.length() - 1);
    }
    if (text.equals("true") || text.equals("false")) {
      return Boolean.valueOf(text);
    }
    return Long.valueOf(text);
  }

  /** "(a)" → "a": text in one pair of parentheses of its own ("(a) && (b)" is left alone). */
  private static String unwrap(String text) {
    String t = text;
    while (t.startsWith("(") && t.endsWith(")") && closes(t)) {
      t = t.substring(1, t.length() - 1).trim();
    }
    return t;
  }

  /** Whether the parenthesis opening {@code text} is closed by its last character. */
  private static boolean closes(String text) {
    int depth = 0;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == '(') {
        depth++;
      } else if (c == ')') {
        depth--;
        if (depth == 0) {
          return i == text.length() - 1;
        }
      }
    }
    return false;
  }
}
