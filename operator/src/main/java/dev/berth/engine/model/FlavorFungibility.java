package dev.berth.engine.model;

/** When the flavor search may stop, and which of borrowing or preemption is preferred. */
public record FlavorFungibility(
    WhenCanBorrow whenCanBorrow, WhenCanPreempt whenCanPreempt, Preference preference) {
  public static final FlavorFungibility DEFAULT =
      new FlavorFungibility(WhenCanBorrow.MayStopSearch, WhenCanPreempt.TryNextFlavor, null);

  /** Policy when a flavor fits only by borrowing. */
  public enum WhenCanBorrow {
    MayStopSearch,
    TryNextFlavor
  }

  /** Policy when a flavor fits only by preempting. */
  public enum WhenCanPreempt {
    MayStopSearch,
    TryNextFlavor
  }

  /** Which is better when both are possible on different flavors. */
  public enum Preference {
    BorrowingOverPreemption,
    PreemptionOverBorrowing
  }

  public FlavorFungibility {
    whenCanBorrow = whenCanBorrow == null ? WhenCanBorrow.MayStopSearch : whenCanBorrow;
    whenCanPreempt = whenCanPreempt == null ? WhenCanPreempt.TryNextFlavor : whenCanPreempt;
  }

  /** The effective preference: BorrowingOverPreemption unless set otherwise. */
  public Preference effectivePreference() {
    return preference == null ? Preference.BorrowingOverPreemption : preference;
  }
}
