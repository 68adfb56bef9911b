package dev.berth.engine.quota;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Interns (flavor, resource) pairs as dense ints so that quota and usage live in plain long arrays.
 * Indices are never reused, so an index held by an admitted workload stays valid.
 */
public final class FlavorResources {
  private final Map<String, Map<String, Integer>> index = new HashMap<>();
  private final List<String> flavors = new ArrayList<>();
  private final List<String> resources = new ArrayList<>();

  public int intern(String flavor, String resource) {
    Map<String, Integer> byResource = index.computeIfAbsent(flavor, f -> new HashMap<>());
    Integer existing = byResource.get(resource);
    if (existing != null) {
      return existing;
    }
    int id = flavors.size();
    flavors.add(flavor);
    resources.add(resource);
    byResource.put(resource, id);
    return id;
  }

  /** The index of a pair, or -1 when it was never interned. */
  public int find(String flavor, String resource) {
    Map<String, Integer> byResource = index.get(flavor);
    Integer id = byResource == null ? null : byResource.get(resource);
    return id == null ? -1 : id;
  }

  public int size() {
    return flavors.size();
  }

  public String flavor(int fr) {
    return flavors.get(fr);
  }

  public String resource(int fr) {
    return resources.get(fr);
  }
}
