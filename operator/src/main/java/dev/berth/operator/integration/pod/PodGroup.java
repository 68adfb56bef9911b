package dev.berth.operator.integration.pod;

import dev.berth.api.v1beta1.Berth;
import dev.berth.api.v1beta1.PodSet;
import dev.berth.api.v1beta1.PodSetAssignment;
import dev.berth.api.v1beta1.Workload;
import dev.berth.operator.admission.PodRequests;
import dev.berth.operator.integration.Integration.Finish;
import dev.berth.operator.integration.TopologyAnnotations;
import dev.berth.operator.topology.DomainSlots;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

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
  /** The podSet of a group whose pods have no role: alike, so one podSet of all its pods. */
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

  /** A member to start in {@code podSet}, in {@code domain} (empty without topology). */
  public record Release(Pod pod, String podSet, Map<String, String> domain) {}

  /**
   * The waiting members that may start under {@code workload}'s admission: in each podSet, no more
   * than its count less its members already started, and only pods asking for what the podSet's
   * template asked (a replacement asking for more would run on quota nobody admitted: it stays
   * behind the gate, see {@link #unfitting}); a topology-placed podSet's pods each into a domain of
   * its assignment with a free slot, its started members keeping theirs.
   */
  public List<Release> releases(Workload workload) {
    List<Release> releases = new ArrayList<>();
    for (PodSet podSet : workload.getSpec().podSets) {
      List<Pod> mine = members().stream().filter(p -> podSet.name.equals(role(p))).toList();
      List<Pod> started = mine.stream().filter(p -> !gated(p)).toList();
      int free = (podSet.count == null ? 1 : podSet.count) - started.size();
      PodSetAssignment.TopologyAssignment placement = topology(workload, podSet.name);
      DomainSlots slots = placement == null ? null : new DomainSlots(placement);
      if (slots != null) {
        started.forEach(p -> slots.take(p.getSpec().getNodeSelector()));
      }
      for (Pod pod : mine) {
        if (free <= 0) {
          break;
        }
        if (!gated(pod) || !fits(pod, podSet)) {
          continue;
        }
        Map<String, String> domain = slots == null ? Map.of() : slots.next();
        if (domain == null) {
          break; // every domain of the podSet is full
        }
        releases.add(new Release(pod, podSet.name, domain));
        free--;
      }
    }
    return releases;
  }

  /**
   * Waiting members the Workload cannot start: their role is none of its podSets, or they ask for
   * other requests or claims than their podSet's template (a replacement made from a changed
   * template).
   */
  public List<Pod> unfitting(Workload workload) {
    return toRelease().stream()
        .filter(
            p ->
                workload.getSpec().podSets.stream()
                    .noneMatch(ps -> ps.name.equals(role(p)) && fits(p, ps)))
        .toList();
  }

  /**
   * Whether the pod asks for what its podSet's template does: the same container requests, and the
   * same claims (its Workload was charged the devices of the template's; a member made before the
   * Workload, from a changed template, is not checked by the pod queue rule).
   */
  private static boolean fits(Pod pod, PodSet podSet) {
    var template = podSet.template == null ? null : podSet.template.getSpec();
    return PodRequests.of(pod.getSpec()).equals(PodRequests.of(template))
        && claims(pod.getSpec()).equals(claims(template));
  }

  private static List<io.fabric8.kubernetes.api.model.PodResourceClaim> claims(
      io.fabric8.kubernetes.api.model.PodSpec spec) {
    return spec == null || spec.getResourceClaims() == null ? List.of() : spec.getResourceClaims();
  }

  private static PodSetAssignment.TopologyAssignment topology(Workload workload, String podSet) {
    return workload.getStatus().admission.podSetAssignments.stream()
        .filter(a -> podSet.equals(a.name) && a.topologyAssignment != null)
        .map(a -> a.topologyAssignment)
        .filter(a -> a.levels != null && a.domains != null)
        .findFirst()
        .orElse(null);
  }

  /** The podSet a pod is counted in: its {@link Berth#POD_GROUP_ROLE_ANNOTATION}, else main. */
  public static String role(Pod pod) {
    Map<String, String> annotations = pod.getMetadata().getAnnotations();
    String role = annotations == null ? null : annotations.get(Berth.POD_GROUP_ROLE_ANNOTATION);
    return role == null || role.isBlank() ? PODSET : role.trim();
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

  /**
   * A podSet per role ({@link #role}), in name order ({@code leader} before {@code worker}): as
   * many pods as the members in that role, like the first of them, placed as its template's
   * topology annotations ask. A group without roles has one podSet {@code main} of {@code
   * totalCount} pods.
   */
  public List<PodSet> podSets() {
    Map<String, List<Pod>> byRole = new TreeMap<>();
    for (Pod pod : members()) {
      byRole.computeIfAbsent(role(pod), r -> new ArrayList<>()).add(pod);
    }
    List<PodSet> podSets = new ArrayList<>();
    byRole.forEach(
        (role, pods) -> {
          PodTemplateSpec template = PodAdapter.template(pods.get(0));
          PodSet podSet = new PodSet(role, pods.size(), template);
          podSet.topologyRequest = TopologyAnnotations.request(template);
          podSets.add(podSet);
        });
    return podSets;
  }
}
