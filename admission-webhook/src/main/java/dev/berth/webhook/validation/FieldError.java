package dev.berth.webhook.validation;

import java.util.List;
import java.util.stream.Collectors;

/**
 * One problem with one field, like Kubernetes' {@code field.Error}: the path, the offending value
 * and a message. {@link #toString()} renders it the way the API server does.
 */
public record FieldError(Type type, String path, Object badValue, String message) {

  /** The kinds of field error Kubernetes distinguishes; they become StatusCause reasons. */
  public enum Type {
    INVALID("FieldValueInvalid", "Invalid value"),
    REQUIRED("FieldValueRequired", "Required value"),
    DUPLICATE("FieldValueDuplicate", "Duplicate value"),
    NOT_SUPPORTED("FieldValueNotSupported", "Unsupported value"),
    FORBIDDEN("FieldValueForbidden", "Forbidden"),
    TOO_MANY("FieldValueTooMany", "Too many");

    public final String reason;
    public final String label;

    Type(String reason, String label) {
      this.reason = reason;
      this.label = label;
    }
  }

  public static FieldError invalid(FieldPath path, Object value, String message) {
    return new FieldError(Type.INVALID, path.toString(), value, message);
  }

  public static FieldError required(FieldPath path, String message) {
    return new FieldError(Type.REQUIRED, path.toString(), null, message);
  }

  public static FieldError duplicate(FieldPath path, Object value) {
    return new FieldError(Type.DUPLICATE, path.toString(), value, "");
  }

  public static FieldError notSupported(FieldPath path, Object value, List<String> supported) {
    String list = supported.stream().map(s -> "\"" + s + "\"").collect(Collectors.joining(", "));
    return new FieldError(Type.NOT_SUPPORTED, path.toString(), value, "supported values: " + list);
  }

  public static FieldError forbidden(FieldPath path, String message) {
    return new FieldError(Type.FORBIDDEN, path.toString(), null, message);
  }

  public static FieldError tooMany(FieldPath path, int actual, int max) {
    return new FieldError(
        Type.TOO_MANY, path.toString(), actual, "must have at most " + max + " items");
  }

  /** The detail after the path, e.g. {@code Invalid value: "x": must be a DNS subdomain}. */
  public String detail() {
    StringBuilder s = new StringBuilder(type.label);
    if (type != Type.REQUIRED && type != Type.FORBIDDEN && badValue != null) {
      s.append(": ").append(render(badValue));
    }
    if (!message.isEmpty()) {
      s.append(": ").append(message);
    }
    return s.toString();
  }

  @Override
  public String toString() {
    return path + ": " + detail();
  }

  private static String render(Object value) {
    String text = value instanceof String ? "\"" + value + "\"" : String.valueOf(value);
    // Long values (whole pod templates) would drown the message; the path already locates them.
    return text.length() > 120 ? text.substring(0, 117) + "..." : text;
  }
}
