package dev.berth.testing;

import dev.berth.api.v1beta1.ResourceQuota;
import io.fabric8.kubernetes.api.model.Quantity;

/** The quota of one resource on one flavor: {@code gpu("8").borrowingLimit("4")}. */
public final class Quota {
  public static final String GPU = "nvidia.com/gpu";

  private final ResourceQuota quota;

  private Quota(String resource, String nominal) {
    this.quota = new ResourceQuota(resource, nominal);
  }

  public static Quota quota(String resource, String nominal) {
    return new Quota(resource, nominal);
  }

  public static Quota gpu(String nominal) {
    return quota(GPU, nominal);
  }

  public static Quota cpu(String nominal) {
    return quota("cpu", nominal);
  }

  public static Quota memory(String nominal) {
    return quota("memory", nominal);
  }

  public Quota borrowingLimit(String limit) {
    quota.borrowingLimit = new Quantity(limit);
    return this;
  }

  public Quota lendingLimit(String limit) {
    quota.lendingLimit = new Quantity(limit);
    return this;
  }

  String resource() {
    return quota.name;
  }

  ResourceQuota build() {
    return quota;
  }
}
