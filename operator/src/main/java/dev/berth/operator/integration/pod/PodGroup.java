package dev.berth.operator.integration.pod;

import dev.berth.api.v1beta1.Berth;
import dev.berth.api.v1beta1.PodSet;
import dev.berth.operator.integration.Integration.Finish;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A pod group as its pods show it (Kueue's plain pod groups, under berth.dev/): the plain Pods of a
 * namespace labelled with one {@link Berth#POD_GROUP_NAME_LABEL}, each annotated with the group's
 * {@link Berth#POD_GROUP_TOTAL_COUNT_ANNOTATION}. Pure: it decides, the reconciler writes.
 *
 * <p>Its members are the first {@code totalCount} of its live pods (not failed, not being deleted;
 * succeeded ones count), oldest first: a failed pod is replaced by a newer one, which takes its
 * place, and live pods beyond the total are excess, deleted while still gated (as Kueue does)
 * instead of run on quota the group was not admitted for.
 */
public record PodGroup(String namespace, String name, int totalCount, List<Pod> pods) {
  /** The group's podSet: its pods are alike, so one podSet of {@code totalCount} pods. */
  public static final String PODSET = PodAdapter.PODSET;

  /**
   * The group of {@code pods} (all with the same group label), or why it is not one: its pods
   * disagree on the total count, or one's is not a positive integer.
   */
  public static Result of(String namespace, String name, List<Pod> pods) {
    Integer total = null;
    for (Pod pod : pods) {
      Map<String, String> annotations = pod.getMetadata().getAnnotations();
      String value =
          annotations == null ? null : annotations.get(Berth.POD_GROUP_TOTAL_COUNT_ANNOTATION);
      int count;
      try {
        count = value == null ? -1 : Integer.parseInt(value.trim());
      } catch (NumberFormatException e) {
        count = -1;
      }
      if (count < 1) {
        return new Result(
            null,
            "pod "
                + pod.getMetadata().getName()
                + " of group "
                + name
                + " has no positive "
                + Berth.POD_GROUP_TOTAL_COUNT_ANNOTATION
                + " (\""
                + value
                + "\")");
      }
      if (total != null && total != count) {
        return new Result(
            null,
            "the pods of group "
                + name
                + " disagree on "
                + Berth.POD_GROUP_TOTAL_COUNT_ANNOTATION
                + " ("
                + total
                + " and "
                + count
                + ")");
      }
      total = count;
    }
    List<Pod> sorted = new ArrayList<>(pods);
    sorted.sort(
        Comparator.comparing((Pod p) -> String.valueOf(p.getMetadata().getCreationTimestamp()))
            .thenComparing(p -> p.getMetadata().getName()));
    return new Result(new PodGroup(namespace, name, total == null ? 0 : total, sorted), null);
  }

  /** A group, or the reason its pods do not make one. */
  public record Result(PodGroup group, String problem) {}

  private static String phase(Pod pod) {
    return pod.getStatus() == null ? null : pod.getStatus().getPhase();
  }

  private static boolean deleting(Pod pod) {
    return pod.getMetadata().getDeletionTimestamp() != null;
  }

  private static boolean ended(Pod pod) {
    return "Succeeded".equals(phase(pod)) || "Failed".equals(phase(pod));
  }

  private List<Pod> live() {
    return pods.stream().filter(p -> !deleting(p) && !"Failed".equals(phase(p))).toList();
  }

  /** The pods that make the group: the first {@code totalCount} live ones. */
  public List<Pod> members() {
    List<Pod> live = live();
    return live.subList(0, Math.min(totalCount, live.size()));
  }

  /** Whether it has all its pods, so that its Workload may be created. */
  public boolean complete() {
    return live().size() >= totalCount;
  }

  /** Live pods beyond the total that still wait behind the gate: to be deleted. */
  public List<Pod> excess() {
    List<Pod> live = live();
    return live.subList(Math.min(totalCount, live.size()), live.size()).stream()
        .filter(PodGroup::gated)
        .toList();
  }

  /** Members still behind Berth's admission gate: released together once admitted. */
  public List<Pod> toRelease() {
    return members().stream().filter(PodGroup::gated).toList();
  }

  /** Pods that may still run (not ended, not already being deleted): deleted on eviction. */
  public List<Pod> toStop() {
    return pods.stream().filter(p -> !deleting(p) && !ended(p)).toList();
  }

  private static boolean gated(Pod pod) {
    return new PodAdapter().isSuspended(pod);
  }

  /**
   * Succeeded once {@code totalCount} of its pods have; Failed once a pod says the group will not
   * replace failed ones ({@link Berth#RETRIABLE_IN_GROUP_ANNOTATION} {@code "false"}) and none of
   * its pods may run any more; empty otherwise (a failed pod may yet be replaced).
   */
  public Optional<Finish> finished() {
    long succeeded = pods.stream().filter(p -> "Succeeded".equals(phase(p))).count();
    if (succeeded >= totalCount) {
      return Optional.of(
          new Finish(true, "all " + totalCount + " pods of group " + name + " succeeded"));
    }
    boolean retriable =
        pods.stream()
            .noneMatch(
                p ->
                    p.getMetadata().getAnnotations() != null
                        && "false"
                            .equals(
                                p.getMetadata()
                                    .getAnnotations()
                                    .get(Berth.RETRIABLE_IN_GROUP_ANNOTATION)));
    if (!retriable && pods.stream().allMatch(PodGroup::ended)) {
      return Optional.of(
          new Finish(
              false,
              succeeded
                  + " of "
                  + totalCount
                  + " pods of group "
                  + name
                  + " succeeded, and it replaces no failed pod ("
                  + Berth.RETRIABLE_IN_GROUP_ANNOTATION
                  + ": false)"));
    }
    return Optional.empty();
  }

  /** Its one podSet: {@code totalCount} pods like its first member. */
  public List<PodSet> podSets() {
    return List.of(new PodSet(PODSET, totalCount, PodAdapter.template(members().get(0))));
  }
}
