package dev.berth.operator.budget;

import java.math.BigDecimal;
import java.util.Map;

/**
 * One budget as evaluated at an instant: its window, hours used and allowed per resource, whether
 * it is spent, the message its waiting workloads get, and the durable record for its status.
 */
public record BudgetState(
    String name,
    BudgetTarget target,
    BudgetWindow.Span span,
    Map<String, BigDecimal> usedHours,
    Map<String, BigDecimal> limitHours,
    boolean exhausted,
    String message,
    Map<String, BigDecimal> endedSeconds,
    Map<String, Long> counted) {}
