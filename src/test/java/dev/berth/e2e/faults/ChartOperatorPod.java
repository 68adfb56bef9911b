package dev.berth.e2e.faults;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The operator container as {@code helm install} with the chart's defaults makes it: its
 * environment (JAVA_TOOL_OPTIONS, and BERTH_CONFIG naming its configuration file: the webhook,
 * certificate, writer and watch settings) and its memory limit, read from the chart's Deployment
 * rendered by the real helm binary ({@code helm template}, release {@value #RELEASE} in {@value
 * #NAMESPACE}), not copied by hand.
 */
record ChartOperatorPod(Map<String, String> env, long memoryLimitBytes) {
  static final String RELEASE = "berth";
  static final String NAMESPACE = "berth-system";

  static ChartOperatorPod render() throws IOException, InterruptedException {
    Deployment deployment =
        Serialization.unmarshal(
            helm(
                "template",
                RELEASE,
                chart().toString(),
                "--namespace",
                NAMESPACE,
                "--show-only",
                "templates/deployment.yaml"),
            Deployment.class);
    Container operator = deployment.getSpec().getTemplate().getSpec().getContainers().get(0);
    Map<String, String> env = new LinkedHashMap<>();
    for (EnvVar e : operator.getEnv()) {
      if (e.getValue() != null) {
        env.put(e.getName(), e.getValue());
      } else if (e.getValueFrom() != null
          && e.getValueFrom().getFieldRef() != null
          && "metadata.namespace".equals(e.getValueFrom().getFieldRef().getFieldPath())) {
        env.put(e.getName(), NAMESPACE);
      } else {
        throw new IllegalStateException("the chart's env " + e.getName() + " cannot be resolved");
      }
    }
    // The configuration file, where the kubelet would mount the chart's ConfigMap: a file of
    // this machine's, named by BERTH_CONFIG as the chart names the mounted one.
    ConfigMap config =
        Serialization.unmarshal(
            helm(
                "template",
                RELEASE,
                chart().toString(),
                "--namespace",
                NAMESPACE,
                "--show-only",
                "templates/configmap.yaml"),
            ConfigMap.class);
    Path file = Files.createTempFile("berth-faults-config-", ".yaml");
    file.toFile().deleteOnExit();
    Files.writeString(file, config.getData().get("config.yaml"));
    if (env.put("BERTH_CONFIG", file.toString()) == null) {
      throw new IllegalStateException("the chart's Deployment names no BERTH_CONFIG");
    }
    Quantity memory = operator.getResources().getLimits().get("memory");
    return new ChartOperatorPod(env, Quantity.getAmountInBytes(memory).longValueExact());
  }

  private static Path chart() {
    String repo = System.getProperty("berth.repo");
    if (repo == null || repo.isBlank()) {
      throw new IllegalStateException("system property berth.repo is not set; run through Maven");
    }
    return Path.of(repo, "helm", "berth");
  }

  /** The helm binary the build makes (scripts/helm-binary.sh; src/test/pom.xml names it). */
  private static String helm(String... args) throws IOException, InterruptedException {
    String configured = System.getProperty("berth.helm");
    if (configured == null || configured.isBlank()) {
      throw new IllegalStateException("system property berth.helm is not set; run through Maven");
    }
    Path helm = Path.of(configured);
    String testDir = System.getenv("KUBE_API_TEST_DIR");
    if (testDir != null && !testDir.isBlank()) {
      helm = Path.of(testDir, "helm", helm.getParent().getFileName().toString(), "helm");
    }
    if (!Files.isExecutable(helm)) {
      throw new IllegalStateException(helm + " is missing: run scripts/helm-binary.sh");
    }
    Path out = Files.createTempFile("berth-faults-helm-", ".yaml");
    try {
      List<String> command = new ArrayList<>(List.of(helm.toString()));
      command.addAll(List.of(args));
      Process process =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(out.toFile())
              .start();
      if (!process.waitFor(120, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        throw new IllegalStateException("helm " + String.join(" ", args) + " timed out");
      }
      String output = Files.readString(out, StandardCharsets.UTF_8);
      if (process.exitValue() != 0) {
        throw new IllegalStateException("helm " + String.join(" ", args) + " failed:\n" + output);
      }
      return output;
    } finally {
      Files.deleteIfExists(out);
    }
  }
}
