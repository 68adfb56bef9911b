package dev.berth.local;

import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * A third-party controller's kubeconfig: the admin's, acting as the controller's own service
 * account with the admin's rights (group system:masters). Berth's webhooks tell the operator's
 * writes from everyone else's by user name, and the admin's certificate is also the operator's
 * identity here; a controller running as the admin would pass every rule Berth keeps for what it
 * writes.
 */
public final class ServiceAccountKubeconfig {
  private ServiceAccountKubeconfig() {}

  /** Writes {@code adminKubeconfig} as {@code user} to {@code target}, and returns it. */
  public static Path write(Path adminKubeconfig, String user, Path target) throws IOException {
    Files.writeString(target, impersonating(Files.readString(adminKubeconfig), user));
    return target;
  }

  @SuppressWarnings("unchecked")
  static String impersonating(String kubeconfig, String user) {
    Map<String, Object> config = Serialization.unmarshal(kubeconfig, Map.class);
    for (Object entry : (List<Object>) config.getOrDefault("users", List.of())) {
      Map<String, Object> credentials =
          (Map<String, Object>) ((Map<String, Object>) entry).get("user");
      credentials.put("as", user);
      credentials.put("as-groups", List.of("system:masters", "system:authenticated"));
    }
    return Serialization.asYaml(config);
  }
}
