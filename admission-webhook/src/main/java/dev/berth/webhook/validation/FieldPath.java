package dev.berth.webhook.validation;

/**
 * A field path in Kubernetes' notation ({@code spec.resourceGroups[0].flavors[1].name}, {@code
 * metadata.labels[berth.dev/queue-name]}), so messages match what kubectl users know.
 */
public final class FieldPath {
  private final String path;

  private FieldPath(String path) {
    this.path = path;
  }

  public static FieldPath root(String name) {
    return new FieldPath(name);
  }

  public FieldPath child(String name) {
    return new FieldPath(path.isEmpty() ? name : path + "." + name);
  }

  public FieldPath index(int i) {
    return new FieldPath(path + "[" + i + "]");
  }

  public FieldPath key(String key) {
    return new FieldPath(path + "[" + key + "]");
  }

  @Override
  public String toString() {
    return path;
  }
}
