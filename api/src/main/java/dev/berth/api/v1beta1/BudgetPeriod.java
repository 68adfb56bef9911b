package dev.berth.api.v1beta1;

/**
 * A budget's calendar window: a day from midnight, an ISO week from Monday midnight, or a month
 * from the 1st at midnight, each in the budget's time zone.
 */
public enum BudgetPeriod {
  Day,
  Week,
  Month
}
