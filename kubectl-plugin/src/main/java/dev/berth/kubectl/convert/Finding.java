package dev.berth.kubectl.convert;

/**
 * One thing convert reports on stderr: an object (or a field of it, by its path) that is not
 * carried over as written, and why.
 *
 * @param source the file the document came from ({@code -} for stdin)
 * @param object the object, as {@code kind/name} (namespaced: {@code kind/namespace/name})
 * @param path the field path inside the object; empty when the whole object is meant
 * @param kind what happened to it
 * @param message why, and what Berth does instead
 */
public record Finding(String source, String object, String path, Kind kind, String message) {

  /** What became of the object or field. */
  public enum Kind {
    /** The whole object is left out of the output: Berth has nothing that does its job. */
    NOT_SUPPORTED,
    /** The field (or value) is left out; the rest of the object is converted. */
    DROPPED,
    /** The value is rewritten to Berth's equivalent, with the same effect. */
    REWRITTEN,
    /** Carried over as written, with something the user should know. */
    NOTE
  }

  @Override
  public String toString() {
    String what =
        switch (kind) {
          case NOT_SUPPORTED -> "not converted";
          case DROPPED -> "dropped";
          case REWRITTEN -> "rewritten";
          case NOTE -> "note";
        };
    return source
        + ": "
        + object
        + (path.isEmpty() ? "" : ": " + path)
        + ": "
        + what
        + ": "
        + message;
  }
}
