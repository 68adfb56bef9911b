package dev.berth.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.berth.e2e.chart.ChartRoles;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBindingBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A team member as a cluster makes one: bound in a namespace to the built-in {@code edit} role and
 * to the chart's {@code berth-batch-user} (rendered by helm). A test API server runs no controller
 * manager, so aggregated roles stay empty: the member is bound to each role they aggregate, exactly
 * the rules aggregation would give.
 */
public final class TeamMemberRoles {
  private static final ObjectMapper JSON = new ObjectMapper();

  private TeamMemberRoles() {}

  /**
   * Applies the chart's ClusterRoles and binds {@code user} to edit and batch-user in {@code ns}.
   */
  public static void bind(KubernetesClient admin, String user, String ns) {
    for (GenericKubernetesResource role : ChartRoles.clusterRoles("berth", "berth-system")) {
      role.getMetadata().setResourceVersion(null);
      admin.resource(role).serverSideApply();
    }
    for (String aggregated : List.of("edit", "berth-batch-user")) {
      for (String role : leaves(admin, aggregated)) {
        bindRole(admin, user, ns, role);
      }
    }
  }

  /**
   * Binds {@code user} in {@code ns} to a ClusterRole {@code name} granting {@code resources} of
   * {@code apiGroups} to edit: a stand-in for the roles a third-party controller's installation
   * gives its users (its own kinds are none of the chart's).
   */
  public static void bindEditorStandIn(
      KubernetesClient admin,
      String user,
      String ns,
      String name,
      List<String> apiGroups,
      List<String> resources) {
    admin
        .rbac()
        .clusterRoles()
        .resource(
            new ClusterRoleBuilder()
                .withNewMetadata()
                .withName(name)
                .endMetadata()
                .addNewRule()
                .withApiGroups(apiGroups)
                .withResources(resources)
                .withVerbs("get", "list", "watch", "create", "update", "patch", "delete")
                .endRule()
                .build())
        .serverSideApply();
    bindRole(admin, user, ns, name);
  }

  /** A RoleBinding of {@code user} to a ClusterRole in one namespace, as a team admin writes. */
  public static void bindRole(KubernetesClient admin, String user, String ns, String clusterRole) {
    admin
        .rbac()
        .roleBindings()
        .inNamespace(ns)
        .resource(
            new RoleBindingBuilder()
                .withNewMetadata()
                .withName(user + "-" + clusterRole.replace(':', '-'))
                .withNamespace(ns)
                .endMetadata()
                .withNewRoleRef("rbac.authorization.k8s.io", "ClusterRole", clusterRole)
                .addNewSubject()
                .withKind("User")
                .withName(user)
                .endSubject()
                .build())
        .serverSideApply();
  }

  /** The roles an aggregated ClusterRole collects, through the aggregated roles it selects. */
  public static List<String> leaves(KubernetesClient admin, String name) {
    List<String> out = new ArrayList<>();
    Set<String> seen = new HashSet<>();
    List<String> todo = new ArrayList<>(List.of(name));
    while (!todo.isEmpty()) {
      String next = todo.remove(0);
      if (!seen.add(next)) {
        continue;
      }
      JsonNode role =
          JSON.valueToTree(
              admin
                  .genericKubernetesResources("rbac.authorization.k8s.io/v1", "ClusterRole")
                  .withName(next)
                  .get());
      JsonNode selectors = role.at("/aggregationRule/clusterRoleSelectors");
      if (selectors.isMissingNode() || selectors.isNull()) {
        out.add(next);
        continue;
      }
      for (JsonNode selector : selectors) {
        Map<String, String> labels = new HashMap<>();
        selector
            .path("matchLabels")
            .properties()
            .forEach(e -> labels.put(e.getKey(), e.getValue().asText()));
        admin.rbac().clusterRoles().withLabels(labels).list().getItems().stream()
            .map(r -> r.getMetadata().getName())
            .forEach(todo::add);
      }
    }
    if (out.isEmpty()) {
      throw new AssertionError("no roles aggregated into " + name);
    }
    return out;
  }
}
