package dev.berth.api.v1beta1;

/** The dominant-resource share divided by the weight, in thousandths (1000 = its nominal). */
public class FairSharingStatus {
  public Long weightedShare;
}
