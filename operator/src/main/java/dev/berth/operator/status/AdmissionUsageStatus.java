package dev.berth.operator.status;

import dev.berth.api.v1beta1.AdmissionFairSharingStatus;
import dev.berth.api.v1beta1.FairSharingStatus;
import dev.berth.engine.LocalQueueUsageView;
import io.fabric8.kubernetes.api.model.Quantity;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.Map;
import java.util.TreeMap;

/**
 * A LocalQueue's {@code status.fairSharing.admissionFairSharingStatus}: the engine's decayed usage
 * (base units, 9 decimals at most) and when it was sampled, in milliseconds so that reading it back
 * gives the engine the very instant it wrote ({@code ModelTranslator#localQueueUsage}).
 */
final class AdmissionUsageStatus {
  private AdmissionUsageStatus() {}

  static FairSharingStatus with(FairSharingStatus stored, LocalQueueUsageView usage) {
    FairSharingStatus out = stored == null ? new FairSharingStatus() : stored;
    AdmissionFairSharingStatus afs = new AdmissionFairSharingStatus();
    Map<String, Quantity> consumed = new TreeMap<>();
    for (Map.Entry<String, BigDecimal> e : usage.consumed().entrySet()) {
      consumed.put(e.getKey(), new Quantity(e.getValue().stripTrailingZeros().toPlainString()));
    }
    afs.consumedResources = consumed;
    afs.lastUpdate = Instant.ofEpochMilli(usage.lastUpdate()).toString();
    out.admissionFairSharingStatus = afs;
    return out;
  }
}
