package dev.berth.engine.model;

import java.util.List;
import java.util.function.Supplier;

/**
 * Why a workload is pending: a reason and a message with numbers. The message is formatted only
 * when read, so that a cycle that rejects many workloads allocates no strings.
 */
public final class Explanation {
  private final PendingReason reason;
  private final List<? extends Object> parts;
  private final Supplier<String> lazy;

  /** Set when the summary is not derived from the parts (see {@link #withSuffix}). */
  private final Explanation summaryBase;

  private final String summarySuffix;
  private String message;

  /** Formatted on first read; a String, so a racing second read at worst formats it again. */
  private String summary;

  private Explanation(
      PendingReason reason, List<? extends Object> parts, Supplier<String> lazy, String message) {
    this(reason, parts, lazy, message, null, null);
  }

  private Explanation(
      PendingReason reason,
      List<? extends Object> parts,
      Supplier<String> lazy,
      String message,
      Explanation summaryBase,
      String summarySuffix) {
    this.reason = reason;
    this.parts = parts;
    this.lazy = lazy;
    this.message = message;
    this.summaryBase = summaryBase;
    this.summarySuffix = summarySuffix;
  }

  /**
   * The base explanation with a note added, under another reason: the note follows the detail and
   * the summary's first part alike, so it survives the summary's cut.
   */
  public static Explanation withSuffix(PendingReason reason, Explanation base, String suffix) {
    return new Explanation(reason, null, () -> base.message() + suffix, null, base, suffix);
  }

  public static Explanation of(PendingReason reason, String message) {
    return new Explanation(reason, null, null, message);
  }

  /** An explanation whose message is the parts' toString joined with "; ". */
  public static Explanation ofParts(PendingReason reason, List<? extends Object> parts) {
    return new Explanation(reason, parts, null, null);
  }

  public static Explanation lazy(PendingReason reason, Supplier<String> message) {
    return new Explanation(reason, null, message, null);
  }

  public PendingReason reason() {
    return reason;
  }

  public String message() {
    if (message == null) {
      if (lazy != null) {
        message = lazy.get();
      } else {
        StringBuilder sb = new StringBuilder();
        for (Object p : parts) {
          if (sb.length() > 0) {
            sb.append("; ");
          }
          sb.append(p);
        }
        message = sb.toString();
      }
    }
    return message;
  }

  /**
   * The message on one line of at most {@link #SUMMARY_LIMIT} characters, for a condition and the
   * wide columns: the first part (callers put the scarcest resource first) and how many more the
   * detail ({@link #message}) has.
   */
  public String summary() {
    String done = summary;
    if (done == null) {
      done = formatSummary();
      summary = done;
    }
    return done;
  }

  private String formatSummary() {
    if (summaryBase != null) {
      // The note is the news (how long a minimum runtime still holds): a long first part of the
      // base is cut to leave it room, not the note.
      String tail = oneLine(summarySuffix + more());
      String base = summaryBase.firstPart().replace('\n', ' ');
      int room = SUMMARY_LIMIT - tail.length();
      if (base.length() > room) {
        base = base.substring(0, Math.max(0, room - 1)) + "\u2026";
      }
      return oneLine(base + tail);
    }
    String head;
    if (summaryBase != null || (parts != null && parts.size() > 1)) {
      head = firstPart() + more();
    } else {
      head = message();
    }
    return oneLine(head);
  }

  private String firstPart() {
    return parts != null && !parts.isEmpty()
        ? String.valueOf(parts.get(0))
        : summaryBase != null ? summaryBase.firstPart() + summarySuffix : message();
  }

  private String more() {
    int n = parts != null ? parts.size() : 0;
    return n > 1
        ? "; and " + (n - 1) + " more (see Events)"
        : summaryBase != null ? summaryBase.more() : "";
  }

  /** Conditions and columns stay readable: one line, at most this many characters. */
  public static final int SUMMARY_LIMIT = 199;

  /** Newlines folded and the text cut at {@link #SUMMARY_LIMIT} characters with an ellipsis. */
  public static String oneLine(String text) {
    String flat = text.replace('\n', ' ');
    return flat.length() <= SUMMARY_LIMIT ? flat : flat.substring(0, SUMMARY_LIMIT - 1) + "\u2026";
  }

  @Override
  public String toString() {
    return reason + ": " + message();
  }
}
