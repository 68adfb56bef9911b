package dev.berth.operator.provisioning;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * Deterministic names, so that a reconcile repeated after a crash or a lost reply finds the objects
 * it made instead of making second ones: {@code <workload>-<check>-<attempt>} for a
 * ProvisioningRequest, {@code ppt-<request>-<podSet>} for its PodTemplates. A name over the
 * 253-character limit is cut and ends in a hash of the whole, so it stays unique.
 */
public final class ProvisioningRequestNames {
  static final int MAX = 253;

  private ProvisioningRequestNames() {}

  /** The request of the {@code attempt}-th reservation (1 for the first) of the workload. */
  public static String request(String workload, String check, int attempt) {
    return fit(workload + "-" + check, "-" + attempt);
  }

  public static String podTemplate(String request, String podSet) {
    return fit("ppt-" + request + "-" + podSet, "");
  }

  private static String fit(String base, String suffix) {
    if (base.length() + suffix.length() <= MAX) {
      return base + suffix;
    }
    String hash = hash(base + suffix);
    String cut = base.substring(0, MAX - suffix.length() - hash.length() - 1);
    while (cut.endsWith("-") || cut.endsWith(".")) {
      cut = cut.substring(0, cut.length() - 1);
    }
    return cut + "-" + hash + suffix;
  }

  private static String hash(String s) {
    try {
      byte[] digest =
          MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(digest, 0, 5);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
