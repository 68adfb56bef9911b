package dev.berth.api.v1beta1;

import dev.berth.api.crd.MaxLength;
import dev.berth.api.crd.Rule;
import io.fabric8.kubernetes.api.model.Quantity;

/** A queue's weight in its cohort; 0 means it is never favoured while borrowing. */
public class FairSharing {
  @Rule(
      value = "!quantity(string(self)).isLessThan(quantity('0'))",
      message = "weight must be zero or positive")
  @MaxLength(64)
  public Quantity weight;
}
