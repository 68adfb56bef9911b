package dev.berth.engine;

import java.math.BigDecimal;
import java.util.Map;

/**
 * A LocalQueue's recent usage for admission fair sharing: the decayed usage in base units as of
 * {@code lastUpdate} (epoch millis; null: never sampled), the entry penalties since, and the score
 * that orders it (weighted usage plus penalty over its weight).
 */
public record LocalQueueUsageView(
    Map<String, BigDecimal> consumed,
    Long lastUpdate,
    Map<String, BigDecimal> penalty,
    double score) {}
