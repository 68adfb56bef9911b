package dev.berth.api.v1beta1;

import dev.berth.api.crd.Rule;

/** Whether the flavor search stops at a flavor that needs borrowing or preemption. */
@Rule(
    value =
        "!has(self.preference) || (has(self.whenCanBorrow) && self.whenCanBorrow == 'TryNextFlavor' && (!has(self.whenCanPreempt) || self.whenCanPreempt == 'TryNextFlavor'))",
    message = "preference requires whenCanBorrow and whenCanPreempt to be TryNextFlavor")
public class FlavorFungibility {
  public Policy whenCanBorrow;
  public Policy whenCanPreempt;
  public Preference preference;

  /** Stop at this flavor, or look at the next one first. */
  public enum Policy {
    MayStopSearch,
    TryNextFlavor
  }

  /** Which to try first when neither flavor fits outright. */
  public enum Preference {
    BorrowingOverPreemption,
    PreemptionOverBorrowing
  }
}
