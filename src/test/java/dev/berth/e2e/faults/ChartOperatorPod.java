package dev.berth.e2e.faults;

import dev.berth.webhook.HelmChart;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

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

  static ChartOperatorPod render() {
    Deployment deployment =
        Serialization.unmarshal(
            HelmChart.locate()
                .template(RELEASE, NAMESPACE, List.of("--show-only", "templates/deployment.yaml")),
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
            HelmChart.locate()
                .template(RELEASE, NAMESPACE, List.of("--show-only", "templates/configmap.yaml")),
            ConfigMap.class);
    Path file;
    try {
      file = Files.createTempFile("berth-faults-config-", ".yaml");
      file.toFile().deleteOnExit();
      Files.writeString(file, config.getData().get("config.yaml"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    if (env.put("BERTH_CONFIG", file.toString()) == null) {
      throw new IllegalStateException("the chart's Deployment names no BERTH_CONFIG");
    }
    Quantity memory = operator.getResources().getLimits().get("memory");
    return new ChartOperatorPod(env, Quantity.getAmountInBytes(memory).longValueExact());
  }
}
