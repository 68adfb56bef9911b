package dev.berth.operator.integration;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonAnySetter;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A JSON object of another project's API (JobSet, ProvisioningRequest) of which Berth models only
 * some fields: the others are kept as they came, so an update never drops what its owner wrote.
 */
public abstract class OpenObject {
  private final Map<String, Object> other = new LinkedHashMap<>();

  @JsonAnyGetter
  public Map<String, Object> getOther() {
    return other;
  }

  @JsonAnySetter
  public void setOther(String name, Object value) {
    other.put(name, value);
  }
}
