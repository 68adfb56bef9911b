package dev.berth.api.v1beta1;

import dev.berth.api.crd.Items;
import dev.berth.api.crd.ListType;
import java.util.List;

/** Whether the cohort tree is usable, and its share. */
public class CohortStatus {
  @Items(max = 16)
  @ListType(value = "map", keys = "type")
  public List<Condition> conditions;

  public FairSharingStatus fairSharing;
}
