package dev.berth.webhook.validation;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * A LeaderWorkerSet's pods as the pod webhook sees them at creation. The LWS controller makes each
 * replica group's leader through the LWS's leader StatefulSet (pod {@code <lws>-<group>}) and its
 * {@code size - 1} workers through a StatefulSet of the leader's (pods {@code <lws>-<group>-<n>});
 * every pod carries the LWS's name label and size annotation, the workers also their group's index
 * label and their leader's name. Each group is one pod group ({@link #groupName}) with a podSet per
 * role: {@link #LEADER} (one pod) and {@link #WORKER} ({@code size - 1}).
 */
public final class LeaderWorkerSetPods {
  private LeaderWorkerSetPods() {}

  /** Label on every pod (and StatefulSet) of a LeaderWorkerSet: the LWS's name. */
  public static final String NAME_LABEL = "leaderworkerset.sigs.k8s.io/name";

  /** Label on a group's pods: the group's index (the LWS's pod webhook adds it to the leader). */
  public static final String GROUP_INDEX_LABEL = "leaderworkerset.sigs.k8s.io/group-index";

  /** Annotation on every pod: the group's size, leader included. */
  public static final String SIZE_ANNOTATION = "leaderworkerset.sigs.k8s.io/size";

  /** Annotation on a worker: its leader pod's name (a leader has none). */
  public static final String LEADER_NAME_ANNOTATION = "leaderworkerset.sigs.k8s.io/leader-name";

  /** The leader's podSet (and role). */
  public static final String LEADER = "leader";

  /** The workers' podSet (and role). */
  public static final String WORKER = "worker";

  private static final int MAX_LABEL_VALUE = 63;

  /**
   * Whether the pod is a LeaderWorkerSet's: it carries the name label and the size annotation and
   * its controller is a StatefulSet. One forged by hand joins a group like any pod of it and is
   * queued with it, so it never runs outside the quota.
   */
  public static boolean isMember(JsonNode pod) {
    JsonNode meta = pod.path("metadata");
    if (!meta.path("labels").hasNonNull(NAME_LABEL)
        || !meta.path("annotations").hasNonNull(SIZE_ANNOTATION)) {
      return false;
    }
    for (JsonNode owner : meta.path("ownerReferences")) {
      if (owner.path("controller").asBoolean(false)
          && "StatefulSet".equals(owner.path("kind").asText())
          && "apps/v1".equals(owner.path("apiVersion").asText())) {
        return true;
      }
    }
    return false;
  }

  /**
   * Whether a StatefulSet is one the LWS controller made: labelled with the LWS's name and
   * controlled by the LeaderWorkerSet (a leader StatefulSet) or by a leader pod (a group's
   * workers). Its pods are queued as replica groups, not as the StatefulSet's one group, so the
   * StatefulSet rules leave it alone (the LWS controller scales it as the LWS's replicas change).
   */
  public static boolean madeByController(JsonNode statefulSet) {
    JsonNode meta = statefulSet.path("metadata");
    if (!meta.path("labels").hasNonNull(NAME_LABEL)) {
      return false;
    }
    for (JsonNode owner : meta.path("ownerReferences")) {
      String kind = owner.path("kind").asText();
      if (owner.path("controller").asBoolean(false)
          && (("LeaderWorkerSet".equals(kind)
                  && owner.path("apiVersion").asText().startsWith("leaderworkerset.x-k8s.io/"))
              || ("Pod".equals(kind) && "v1".equals(owner.path("apiVersion").asText())))) {
        return true;
      }
    }
    return false;
  }

  /** A worker names its leader; the leader does not. */
  public static String role(JsonNode pod) {
    return pod.path("metadata").path("annotations").hasNonNull(LEADER_NAME_ANNOTATION)
        ? WORKER
        : LEADER;
  }

  /**
   * The group's size from the pod's size annotation, or -1 when it is not a positive integer. The
   * LWS controller writes it from {@code spec.leaderWorkerTemplate.size}.
   */
  public static int size(JsonNode pod) {
    try {
      int size =
          Integer.parseInt(
              pod.path("metadata").path("annotations").path(SIZE_ANNOTATION).asText("").trim());
      return size >= 1 ? size : -1;
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  /**
   * The pod's group index: its group-index label, or, for a leader created before the LWS's own pod
   * webhook added it (mutating webhooks run in an order Berth does not choose), the ordinal its
   * StatefulSet gave it, the last part of its name. Null when neither says.
   */
  public static String groupIndex(JsonNode pod) {
    String label = pod.path("metadata").path("labels").path(GROUP_INDEX_LABEL).asText(null);
    if (label != null && !label.isBlank()) {
      return label.trim();
    }
    if (!LEADER.equals(role(pod))) {
      return null;
    }
    String name = pod.path("metadata").path("name").asText("");
    int dash = name.lastIndexOf('-');
    String ordinal = dash < 0 ? "" : name.substring(dash + 1);
    return !ordinal.isEmpty() && ordinal.chars().allMatch(Character::isDigit) ? ordinal : null;
  }

  /**
   * The pod group (and Workload name) of group {@code index} of LeaderWorkerSet {@code lws}: {@code
   * leaderworkerset-<lws>-<index>}, shortened with a hash of the LWS's name where that would be
   * longer than a label value may be. The LWS's uid is not part of it: the pods do not carry it.
   */
  public static String groupName(String lws, String index) {
    String name = "leaderworkerset-" + lws + "-" + index;
    if (name.length() <= MAX_LABEL_VALUE) {
      return name;
    }
    String hash = hash(lws);
    int keep = MAX_LABEL_VALUE - "leaderworkerset-".length() - hash.length() - index.length() - 2;
    String prefix = lws.substring(0, Math.max(0, keep)).replaceAll("[-.]+$", "");
    return "leaderworkerset-" + prefix + "-" + hash + "-" + index;
  }

  private static String hash(String value) {
    try {
      byte[] digest =
          MessageDigest.getInstance("SHA-256").digest(value.getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(digest, 0, 4);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is always there", e);
    }
  }
}
