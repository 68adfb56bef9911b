package dev.berth.webhook.validation;

import dev.berth.api.v1beta1.Berth;
import dev.berth.api.v1beta1.Workload;
import java.util.List;
import java.util.Optional;

/**
 * Rules that depend on who is asking. Only the operator identity may start a managed Job or JobSet
 * (it does so once the Workload is admitted; nobody else can know that it is) and only it may write
 * a Workload's admission. Anyone else writes the state of an admission check only if granted that
 * check ({@link CheckStateGrants}).
 */
public final class RequestGuard {
  private final String operatorIdentity;
  private final CheckStateGuard checkStates;

  /** Without grants: no one but the operator may write any check's state. */
  public RequestGuard(String operatorIdentity) {
    this(operatorIdentity, CheckStateGrants.NONE);
  }

  /**
   * @param operatorIdentity the operator's username, e.g. system:serviceaccount:berth-system:berth
   * @param grants which checks' states a user other than the operator may write
   */
  public RequestGuard(String operatorIdentity, CheckStateGrants grants) {
    this.operatorIdentity = operatorIdentity;
    this.checkStates = new CheckStateGuard(grants);
  }

  public boolean isOperator(String username) {
    return operatorIdentity != null && operatorIdentity.equals(username);
  }

  /**
   * A managed Job or JobSet that is not suspended after this request, when it was suspended (or did
   * not exist) before, is being started. {@code old} is null on create. In a namespace Berth
   * manages ({@code managedNamespace} says why) every Job is managed, labelled or not, so taking
   * the label away changes nothing.
   */
  public List<FieldError> checkStart(
      JobView old, JobView job, String kind, String username, Optional<String> managedNamespace) {
    boolean managed =
        job.managed()
            || (old != null && old.managed())
            || (managedNamespace.isPresent() && !job.childOfJobSet());
    boolean starting = !job.suspended() && (old == null || old.suspended());
    if (!managed || !starting || isOperator(username)) {
      return List.of();
    }
    String scope =
        job.managed() || (old != null && old.managed()) || managedNamespace.isEmpty()
            ? ""
            : " (its namespace is managed: " + managedNamespace.get() + ")";
    return List.of(
        FieldError.forbidden(
            suspendPath(kind),
            "a "
                + kind
                + " managed by Berth"
                + scope
                + " can only be unsuspended by the Berth"
                + " operator, once its Workload is admitted; user \""
                + username
                + "\" may not"));
  }

  /**
   * Where {@code kind} keeps its suspend flag: spec.suspend, or a Kubeflow job's spec.runPolicy.
   */
  private static FieldPath suspendPath(String kind) {
    FieldPath path = null;
    for (String segment :
        dev.berth.webhook.integration.Framework.ofKind(kind)
            .suspendPointer()
            .substring(1)
            .split("/")) {
      path = path == null ? FieldPath.root(segment) : path.child(segment);
    }
    return path;
  }

  /**
   * The stop-request mark on a Job is the operator's: with it, the Job controller's {@code
   * Suspended=True} counts as having acknowledged Berth's suspension, and the quota is given back.
   * A mark set by anyone else could make an acknowledgment from before the Job's last start count.
   * {@code old} is null on create.
   */
  public List<FieldError> checkStopRequestMark(JobView old, JobView job, String username) {
    String before = old == null ? null : old.annotations().get(Berth.STOP_REQUESTED_ANNOTATION);
    String after = job.annotations().get(Berth.STOP_REQUESTED_ANNOTATION);
    if (java.util.Objects.equals(before, after) || isOperator(username)) {
      return List.of();
    }
    return List.of(
        FieldError.forbidden(
            FieldPath.root("metadata").child("annotations").key(Berth.STOP_REQUESTED_ANNOTATION),
            "only the Berth operator may set, change or remove this annotation; user \""
                + username
                + "\" may not"));
  }

  public List<FieldError> checkWorkloadStatus(Workload old, Workload wl, String username) {
    return checkWorkloadStatus(old, wl, RequestUser.named(username));
  }

  /**
   * Writes to status.admission and the admission conditions belong to the operator; so does the
   * list of checks. The state of a listed check belongs to the users granted that check.
   */
  public List<FieldError> checkWorkloadStatus(Workload old, Workload wl, RequestUser user) {
    String username = user.username();
    if (isOperator(username)) {
      return WorkloadValidator.validateStatusUpdate(old, wl);
    }
    Errors errors = new Errors();
    Object before = old.getStatus() == null ? null : old.getStatus().admission;
    Object after = wl.getStatus() == null ? null : wl.getStatus().admission;
    if (!WorkloadValidator.sameJson(before, after)) {
      errors.add(
          FieldError.forbidden(
              FieldPath.root("status").child("admission"),
              "only the Berth operator may write a Workload's admission; user \""
                  + username
                  + "\" may not"));
    }
    for (String type : List.of("QuotaReserved", "Admitted")) {
      boolean was =
          old.getStatus() != null
              && WorkloadValidator.conditionTrue(old.getStatus().conditions, type);
      boolean is =
          wl.getStatus() != null
              && WorkloadValidator.conditionTrue(wl.getStatus().conditions, type);
      if (was != is) {
        errors.add(
            FieldError.forbidden(
                FieldPath.root("status").child("conditions"),
                "only the Berth operator may set or clear the "
                    + type
                    + " condition; user \""
                    + username
                    + "\" may not"));
      }
    }
    errors.addAll(checkNames(old, wl, username));
    errors.addAll(checkStates.check(old, wl, user));
    return errors.toList();
  }

  /**
   * A check's controller writes the state of entries the operator listed; which checks apply is the
   * operator's decision (from the ClusterQueue and the assigned flavors).
   */
  private static List<FieldError> checkNames(Workload old, Workload wl, String username) {
    List<String> before = checkNames(old);
    List<String> after = checkNames(wl);
    if (new java.util.HashSet<>(before).equals(new java.util.HashSet<>(after))) {
      return List.of();
    }
    return List.of(
        FieldError.forbidden(
            FieldPath.root("status").child("admissionChecks"),
            "a check's controller may change the state of the listed checks "
                + before
                + ", not add or remove checks ("
                + after
                + "); user \""
                + username
                + "\" may not"));
  }

  private static List<String> checkNames(Workload wl) {
    if (wl.getStatus() == null || wl.getStatus().admissionChecks == null) {
      return List.of();
    }
    return wl.getStatus().admissionChecks.stream()
        .map(c -> c == null ? null : c.name)
        .sorted(java.util.Comparator.nullsFirst(java.util.Comparator.naturalOrder()))
        .toList();
  }
}
