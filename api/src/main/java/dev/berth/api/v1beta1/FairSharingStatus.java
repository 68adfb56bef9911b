package dev.berth.api.v1beta1;

/**
 * The dominant-resource share divided by the weight, in thousandths (1000 = its nominal); on a
 * LocalQueue of a ClusterQueue with admission fair sharing, its recent usage too.
 */
public class FairSharingStatus {
  public Long weightedShare;

  public AdmissionFairSharingStatus admissionFairSharingStatus;
}
