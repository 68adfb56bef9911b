package dev.berth.api.v1beta1;

import dev.berth.api.crd.MaxLength;
import io.fabric8.kubernetes.api.model.Quantity;

/** Usage of one resource: the total, and the part of it borrowed from the cohort. */
public class ResourceUsage {
  @MaxLength(317)
  public String name;

  public Quantity total;
  public Quantity borrowed;

  public ResourceUsage() {}

  public ResourceUsage(String name, Quantity total, Quantity borrowed) {
    this.name = name;
    this.total = total;
    this.borrowed = borrowed;
  }
}
