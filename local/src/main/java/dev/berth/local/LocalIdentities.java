package dev.berth.local;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBindingBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;

/**
 * The people of local mode, each with a kubeconfig of their own, so that Berth's rules meet them as
 * they would on a cluster: an admin (cluster-admin, but not the operator: it cannot unsuspend a
 * managed Job either) and a team member of a sample namespace, bound there to the built-in {@code
 * edit} role and the chart's {@code berth-batch-user} role. The operator keeps its own identity and
 * writes no kubeconfig.
 */
public final class LocalIdentities {
  public static final String NAMESPACE = "berth-system";
  public static final String ADMIN = "local-admin";
  public static final String TEAM_MEMBER = "team-member";

  /** The chart's role for a team member (release name berth). */
  public static final String BATCH_USER_ROLE = "berth-batch-user";

  /** Tokens outlive any local session; the API server's signing key does not outlive it. */
  private static final long TOKEN_SECONDS = 7 * 24 * 3600L;

  private final Path adminKubeconfig;
  private final Path teamKubeconfig;
  private final String teamNamespace;
  private final String adminToken;

  private LocalIdentities(
      Path adminKubeconfig, Path teamKubeconfig, String teamNamespace, String adminToken) {
    this.adminKubeconfig = adminKubeconfig;
    this.teamKubeconfig = teamKubeconfig;
    this.teamNamespace = teamNamespace;
    this.adminToken = adminToken;
  }

  /**
   * Applies the chart's user roles, makes both service accounts with their bindings, and writes the
   * admin's kubeconfig to {@code adminKubeconfig} and the team member's beside it, named {@code
   * <file>-<teamNamespace>}.
   */
  public static LocalIdentities create(
      KubernetesClient operator, Path adminKubeconfig, String teamNamespace) throws IOException {
    applyChartUserRoles(operator);
    ensureNamespace(operator, NAMESPACE);
    ensureNamespace(operator, teamNamespace);
    apply(
        operator,
        new ServiceAccountBuilder()
            .withNewMetadata()
            .withName(ADMIN)
            .withNamespace(NAMESPACE)
            .endMetadata()
            .build());
    apply(
        operator,
        new ClusterRoleBindingBuilder()
            .withNewMetadata()
            .withName("berth-" + ADMIN)
            .endMetadata()
            .withNewRoleRef()
            .withApiGroup("rbac.authorization.k8s.io")
            .withKind("ClusterRole")
            .withName("cluster-admin")
            .endRoleRef()
            .addNewSubject()
            .withKind("ServiceAccount")
            .withName(ADMIN)
            .withNamespace(NAMESPACE)
            .endSubject()
            .build());
    apply(
        operator,
        new ServiceAccountBuilder()
            .withNewMetadata()
            .withName(TEAM_MEMBER)
            .withNamespace(teamNamespace)
            .endMetadata()
            .build());
    for (String role : new String[] {"edit", BATCH_USER_ROLE}) {
      apply(
          operator,
          new RoleBindingBuilder()
              .withNewMetadata()
              .withName(TEAM_MEMBER + "-" + role)
              .withNamespace(teamNamespace)
              .endMetadata()
              .withNewRoleRef()
              .withApiGroup("rbac.authorization.k8s.io")
              .withKind("ClusterRole")
              .withName(role)
              .endRoleRef()
              .addNewSubject()
              .withKind("ServiceAccount")
              .withName(TEAM_MEMBER)
              .withNamespace(teamNamespace)
              .endSubject()
              .build());
    }
    Path admin = adminKubeconfig.toAbsolutePath();
    Files.createDirectories(admin.getParent());
    Path team = admin.resolveSibling(admin.getFileName() + "-" + teamNamespace);
    String adminToken = token(operator, NAMESPACE, ADMIN);
    write(admin, kubeconfig(operator, "local-admin", adminToken, null));
    write(
        team,
        kubeconfig(
            operator, "team-member", token(operator, teamNamespace, TEAM_MEMBER), teamNamespace));
    return new LocalIdentities(admin, team, teamNamespace, adminToken);
  }

  public Path adminKubeconfig() {
    return adminKubeconfig;
  }

  public Path teamKubeconfig() {
    return teamKubeconfig;
  }

  /** The admin's bearer token (the one in its kubeconfig), for the dashboard link. */
  public String adminToken() {
    return adminToken;
  }

  public String teamNamespace() {
    return teamNamespace;
  }

  /** The user name the API server gives a service account's token. */
  public static String userOf(String namespace, String serviceAccount) {
    return "system:serviceaccount:" + namespace + ":" + serviceAccount;
  }

  /** The chart's roles for people (rendered from the chart; LocalIdentitiesIT checks drift). */
  static void applyChartUserRoles(KubernetesClient client) {
    try (InputStream in = LocalIdentities.class.getResourceAsStream("/local/user-roles.yaml")) {
      if (in == null) {
        throw new IllegalStateException("local/user-roles.yaml is not on the classpath");
      }
      for (HasMetadata role : client.load(in).items()) {
        apply(client, role);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void ensureNamespace(KubernetesClient client, String name) {
    apply(client, new NamespaceBuilder().withNewMetadata().withName(name).endMetadata().build());
  }

  /**
   * Server-side apply under a field manager of its own: the samples are applied as "berth-local",
   * and an apply of the bare team Namespace under that same manager would drop the labels the
   * samples gave it (berth.dev/team, which the ClusterQueues select), leaving the team's Jobs
   * Inadmissible whenever the identities were set up after the samples.
   */
  private static void apply(KubernetesClient client, HasMetadata object) {
    client
        .resource(object)
        .fieldManager("berth-local-identities")
        .forceConflicts()
        .serverSideApply();
  }

  private static String token(KubernetesClient client, String namespace, String account) {
    return client
        .serviceAccounts()
        .inNamespace(namespace)
        .withName(account)
        .tokenRequest(
            new TokenRequestBuilder()
                .withNewSpec()
                .withExpirationSeconds(TOKEN_SECONDS)
                .endSpec()
                .build())
        .getStatus()
        .getToken();
  }

  /** A kubeconfig for the same API server as the operator's client, with a bearer token. */
  private static String kubeconfig(
      KubernetesClient client, String user, String token, String namespace) throws IOException {
    Config config = client.getConfiguration();
    String ca =
        config.getCaCertData() != null
            ? config.getCaCertData()
            : Base64.getEncoder()
                .encodeToString(Files.readAllBytes(Path.of(config.getCaCertFile())));
    return """
        apiVersion: v1
        kind: Config
        clusters:
        - name: berth-local
          cluster:
            server: %s
            certificate-authority-data: %s
        users:
        - name: %s
          user:
            token: %s
        contexts:
        - name: %s
          context:
            cluster: berth-local
            user: %s%s
        current-context: %s
        """
        .formatted(
            config.getMasterUrl(),
            ca,
            user,
            token,
            user,
            user,
            namespace == null ? "" : "\n    namespace: " + namespace,
            user);
  }

  private static void write(Path file, String content) throws IOException {
    Files.writeString(file, content, StandardCharsets.UTF_8);
    // A bearer token: readable by its owner only, as kubectl writes ~/.kube/config.
    file.toFile().setReadable(false, false);
    file.toFile().setReadable(true, true);
    file.toFile().setWritable(false, false);
    file.toFile().setWritable(true, true);
  }
}
