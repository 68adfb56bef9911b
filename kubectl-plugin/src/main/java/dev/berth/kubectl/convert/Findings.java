package dev.berth.kubectl.convert;

import java.util.ArrayList;
import java.util.List;

/** The findings of one object, collected while it is converted; paths are relative to it. */
final class Findings {
  private final String source;
  private final String object;
  private final List<Finding> all;

  Findings(String source, String object, List<Finding> all) {
    this.source = source;
    this.object = object;
    this.all = all;
  }

  static Findings collecting(String source, String object) {
    return new Findings(source, object, new ArrayList<>());
  }

  String object() {
    return object;
  }

  void notSupported(String message) {
    all.add(new Finding(source, object, "", Finding.Kind.NOT_SUPPORTED, message));
  }

  void dropped(String path, String message) {
    all.add(new Finding(source, object, path, Finding.Kind.DROPPED, message));
  }

  void rewritten(String path, String message) {
    all.add(new Finding(source, object, path, Finding.Kind.REWRITTEN, message));
  }

  void note(String path, String message) {
    all.add(new Finding(source, object, path, Finding.Kind.NOTE, message));
  }

  List<Finding> list() {
    return all;
  }
}
