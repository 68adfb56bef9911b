package dev.berth.operator.config;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.berth.webhook.HelmChart;
import java.io.IOException;
import java.lang.reflect.RecordComponent;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three artefacts that must say the same thing: the {@link Configuration} records (the schema),
 * docs/configuration.md (one row per field, with its default; one row per environment override),
 * and the chart's ConfigMap rendered by the real helm from its values (with the defaults, and with
 * every value set, each accepted by the loader).
 */
class ConfigurationInStepTest {
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  /** A table row: its first cell (in backticks), its second, and any others. */
  private static final Pattern ROW = Pattern.compile("^\\| `([^`]+)` \\| (.+?) \\|(?: .+ \\|)?$");

  /**
   * The fields the chart does not take from values: the ports its containerPorts, probes and
   * Service name, the mount of its certificate volume, and the webhooks its configurations call.
   */
  private static final Set<String> PINNED_BY_THE_CHART =
      Set.of(
          "metrics.port", "webhook.port", "visibility.port", "webhook.certDir", "webhook.enable");

  /**
   * Fields with one accepted value, kept for Kueue's configuration shape: the chart passes them
   * through, but no other value loads (fairSharing.preemptionStrategies: docs/fair-sharing.md).
   */
  private static final Set<String> ONE_ACCEPTED_VALUE = Set.of("fairSharing.preemptionStrategies");

  /** A value other than the chart's default for every value that feeds the configuration. */
  private static final String EVERY_VALUE =
      """
      replicaCount: 1
      leaderElection: {enabled: false, leaseName: other-lease, exitOnLostLease: false}
      serviceAccount: {name: runner}
      webhooks: {threads: 4, manageJobsWithoutQueueName: false}
      certManager: {enabled: true}
      writers: {threads: 2, queue: 10, qps: 50.5, burst: 20, pendingQps: 1, queueStatusQps: 2.5}
      watchSilenceSeconds: 90
      nativeTls: false
      waitForPodsReady:
        enable: true
        timeoutSeconds: 600
        blockAdmission: true
        recoveryTimeoutSeconds: 120
        requeuingStrategy:
          timestamp: Creation
          backoffBaseSeconds: 5
          backoffMaxSeconds: 50
          backoffLimitCount: 3
      fairSharing: {enable: true, preemptionStrategies: [LessThanOrEqualToFinalShare]}
      integrations: {frameworks: [jobset.x-k8s.io/jobset]}
      deviceClassMappings: [{name: example.com/gpu, deviceClassNames: [gpu.example.com]}]
      usage: {reportIntervalSeconds: 0}
      capacity: {excludedTaintKeys: [example.com/drain]}
      utilization:
        prometheusUrl: http://prometheus.monitoring:9090
        metric: DCGM_FI_PROF_SM_ACTIVE
        namespaceLabel: exported_namespace
        podLabel: exported_pod
        delaySeconds: 30
        giveUpSeconds: 60
      dashboard: {enabled: true}
      admissionFairSharing:
        usageHalfLifeTime: 24h
        usageSamplingInterval: 1m
        resourceWeights: {nvidia.com/gpu: 100, memory: 0}
      """;

  private static HelmChart chart;

  @BeforeAll
  static void locateTheChart() {
    chart = HelmChart.locate();
  }

  @Test
  void theDocumentsTableHasOneRowPerFieldWithItsDefault() throws IOException {
    Map<String, String> rows = table("## Fields");
    assertThat(List.copyOf(rows.keySet())).containsExactlyElementsOf(leaves());
    Configuration defaults = ConfigurationLoader.defaults();
    for (String path : leaves()) {
      assertThat(rows.get(path)).as(path).isEqualTo(shown(valueAt(defaults, path)));
    }
  }

  @Test
  void theDocumentsTableHasOneRowPerEnvironmentOverride() throws IOException {
    Map<String, String> rows = table("## Environment overrides");
    Map<String, String> overrides = new LinkedHashMap<>();
    EnvironmentOverrides.ALL.forEach(o -> overrides.put(o.variable(), "`" + o.path() + "`"));
    assertThat(rows).containsExactlyEntriesOf(overrides);
    assertThat(leaves()).containsAll(EnvironmentOverrides.ALL.stream().map(o -> o.path()).toList());
  }

  @Test
  void thePagesExamplesAreWhatTheLoaderDoes() throws IOException {
    List<String> blocks = new ArrayList<>();
    Matcher m =
        Pattern.compile("```(?:yaml)?\\n(.*?)```", Pattern.DOTALL)
            .matcher(Files.readString(chart.repo().resolve("docs/configuration.md")));
    while (m.find()) {
      blocks.add(m.group(1));
    }
    // The example file loads as it is.
    Configuration example = ConfigurationLoader.load(blocks.get(0), Map.of());
    assertThat(example.waitForPodsReady().requeuingStrategy().backoffLimitCount()).isEqualTo(5);
    // The refusal shown is the loader's, word for word.
    List<String> shown = blocks.get(1).lines().toList();
    assertThat(shown.get(0)).isEqualTo("configuration /etc/berth/config.yaml refused:");
    List<String> errors = new ArrayList<>();
    try {
      ConfigurationLoader.load(
          "apiVersion: config.berth.dev/v1beta1\nkind: Configuration\n"
              + "clientConnection: {qps: 0}\n"
              + "waitForPodsReady: {requeuingStrategy: {timestamp: Now}}\n"
              + "integrations: {frameworks: [batch/job, kubeflow.org/tfjob]}\n",
          Map.of());
    } catch (ConfigurationException e) {
      errors.addAll(e.errors());
    }
    assertThat(shown.subList(1, shown.size()).stream().map(String::trim).toList())
        .containsExactlyElementsOf(errors);
  }

  @Test
  void theChartsDefaultsRenderTheLoadersDefaults() {
    String file = configMapFile(render(List.of()));
    assertThat(documentLeaves(tree(file), "")).containsExactlyElementsOf(leaves());
    Configuration loaded = ConfigurationLoader.load(file, Map.of());
    Configuration defaults = ConfigurationLoader.defaults();
    // The chart names the Service after the release ("berth"); nothing else differs.
    assertThat(loaded.internalCertManagement().webhookServiceName()).isEqualTo("berth");
    for (String path : leaves()) {
      if (!path.equals("internalCertManagement.webhookServiceName")) {
        assertThat(valueAt(loaded, path)).as(path).isEqualTo(valueAt(defaults, path));
      }
    }
  }

  @Test
  void everyFieldButThePinnedOnesIsAChartValue(@TempDir Path dir) throws IOException {
    Path values = Files.writeString(dir.resolve("values.yaml"), EVERY_VALUE);
    String file =
        configMapFile(
            objects(chart.template("other", "batch", List.of("--values", values.toString()))));
    assertThat(documentLeaves(tree(file), "")).containsExactlyElementsOf(leaves());
    Configuration loaded = ConfigurationLoader.load(file, Map.of());
    Configuration defaults = ConfigurationLoader.defaults();
    List<String> unchanged = new ArrayList<>();
    for (String path : leaves()) {
      if (java.util.Objects.equals(valueAt(loaded, path), valueAt(defaults, path))) {
        unchanged.add(path);
      }
    }
    Set<String> expected = new java.util.HashSet<>(PINNED_BY_THE_CHART);
    expected.addAll(ONE_ACCEPTED_VALUE);
    assertThat(unchanged).containsExactlyInAnyOrderElementsOf(expected);
    assertThat(loaded.webhook().operatorIdentity()).isEqualTo("system:serviceaccount:batch:runner");
    assertThat(loaded.waitForPodsReady().recoveryTimeout()).isEqualTo(Duration.ofMinutes(2));
    assertThat(loaded.clientConnection().qps()).isEqualTo(50.5);
  }

  @Test
  void theDeploymentReadsTheFileAndRollsWhenItChanges() {
    List<JsonNode> objects = render(List.of());
    JsonNode pod = one(objects, "Deployment").at("/spec/template");
    JsonNode container = pod.at("/spec/containers/0");
    String file = env(container).get("BERTH_CONFIG");
    assertThat(file).isEqualTo("/etc/berth/config.yaml");
    JsonNode mount = named(container.path("volumeMounts"), "config");
    assertThat(file).startsWith(mount.path("mountPath").asText() + "/");
    assertThat(mount.path("readOnly").asBoolean()).isTrue();
    assertThat(named(pod.at("/spec/volumes"), "config").at("/configMap/name").asText())
        .isEqualTo(one(objects, "ConfigMap", "berth-config").at("/metadata/name").asText());
    assertThat(one(objects, "ConfigMap", "berth-config").at("/data").has("config.yaml")).isTrue();
    // Only the pod's namespace, the file's path and the log format (set before the file is read)
    // are variables; the rest is the file.
    assertThat(env(container).keySet())
        .filteredOn(name -> name.startsWith("BERTH_"))
        .containsExactlyInAnyOrder("BERTH_NAMESPACE", "BERTH_CONFIG", "BERTH_LOG_FORMAT");

    String checksum = pod.at("/metadata/annotations/checksum~1config").asText();
    assertThat(checksum).hasSize(64);
    assertThat(checksumOf(render(List.of()))).isEqualTo(checksum);
    assertThat(checksumOf(render(List.of("--set", "fairSharing.enable=true"))))
        .isNotEqualTo(checksum);
    // Values that are not in the file do not restart the pods.
    assertThat(checksumOf(render(List.of("--set", "probes.liveness.periodSeconds=20"))))
        .isEqualTo(checksum);
  }

  @Test
  void theChartsSchemaRefusesWhatTheLoaderWouldRefuse() {
    assertThat(renderFails("--set", "integrations.frameworks={kubeflow.org/tfjob}"))
        .contains("integrations", "frameworks");
    assertThat(renderFails("--set", "usage.reportIntervalSeconds=-1"))
        .contains("usage", "reportIntervalSeconds");
    assertThat(renderFails("--set", "webhooks.threads=0")).contains("webhooks", "threads");
    assertThat(renderFails("--set", "admissionFairSharing.resourceWeights.cpu=-1"))
        .contains("admissionFairSharing", "resourceWeights");
    assertThat(renderFails("--set", "admissionFairSharing.usageSamplingInterval=5 minutes"))
        .contains("admissionFairSharing", "usageSamplingInterval");
  }

  private static String renderFails(String... args) {
    try {
      chart.template("berth", "berth-system", List.of(args));
    } catch (IllegalArgumentException e) {
      // helm's own message, after the command line (which names the value too).
      return e.getMessage().substring(e.getMessage().indexOf(" failed:\n"));
    }
    throw new AssertionError("rendered: " + List.of(args));
  }

  // --- the schema: the records' components, depth first ---

  static List<String> leaves() {
    List<String> paths = new ArrayList<>();
    leaves(Configuration.class, "", paths);
    return paths;
  }

  private static void leaves(Class<?> record, String prefix, List<String> paths) {
    for (RecordComponent c : record.getRecordComponents()) {
      String path = prefix + c.getName();
      if (c.getType().isRecord() && c.getType().getEnclosingClass() == Configuration.class) {
        leaves(c.getType(), path + ".", paths);
      } else {
        paths.add(path);
      }
    }
  }

  static Object valueAt(Object configuration, String path) {
    Object value = configuration;
    for (String name : path.split("\\.")) {
      try {
        value = value.getClass().getMethod(name).invoke(value);
      } catch (ReflectiveOperationException e) {
        throw new AssertionError(path, e);
      }
    }
    return value;
  }

  /** A default as the table shows it: none, or the value in backticks. */
  private static String shown(Object value) {
    if (value == null) {
      return "none";
    }
    String text;
    if (value instanceof Duration d) {
      text = Durations.format(d);
    } else if (value instanceof Double d) {
      text = d == Math.rint(d) ? Long.toString(d.longValue()) : d.toString();
    } else if (value instanceof List<?> list && list.isEmpty()) {
      text = "[]";
    } else if (value instanceof List<?> list) {
      text = list.stream().map(String::valueOf).collect(Collectors.joining(", "));
    } else {
      text = value.toString();
    }
    return "`" + text + "`";
  }

  // --- docs/configuration.md ---

  /** The first column (unquoted) → the second, of the table under {@code heading}. */
  private static Map<String, String> table(String heading) throws IOException {
    List<String> lines = Files.readAllLines(chart.repo().resolve("docs/configuration.md"));
    int start = lines.indexOf(heading);
    assertThat(start).as(heading).isNotNegative();
    Map<String, String> rows = new LinkedHashMap<>();
    for (String line : lines.subList(start + 1, lines.size())) {
      if (line.startsWith("## ")) {
        break;
      }
      Matcher m = ROW.matcher(line);
      if (m.matches()) {
        assertThat(rows.put(m.group(1), m.group(2))).as("row %s twice", m.group(1)).isNull();
      }
    }
    return rows;
  }

  // --- the chart ---

  private static List<JsonNode> render(List<String> args) {
    return objects(chart.template("berth", "berth-system", args));
  }

  private static List<JsonNode> objects(String yaml) {
    try {
      List<JsonNode> objects = new ArrayList<>();
      for (Iterator<JsonNode> it = YAML.readerFor(JsonNode.class).readValues(yaml);
          it.hasNext(); ) {
        JsonNode o = it.next();
        if (o != null && o.isObject()) {
          objects.add(o);
        }
      }
      return objects;
    } catch (IOException e) {
      throw new AssertionError(e);
    }
  }

  /** The configuration file in the chart's ConfigMap, as the operator reads it. */
  private static String configMapFile(List<JsonNode> objects) {
    JsonNode configMap =
        objects.stream()
            .filter(o -> o.path("kind").asText().equals("ConfigMap"))
            .filter(o -> o.at("/metadata/name").asText().endsWith("-config"))
            .findFirst()
            .orElseThrow();
    return configMap.at("/data/config.yaml").asText();
  }

  private static JsonNode tree(String yaml) {
    try {
      return YAML.readTree(yaml);
    } catch (IOException e) {
      throw new AssertionError(e);
    }
  }

  /** The paths of a rendered document's values, header left out, depth first. */
  private static List<String> documentLeaves(JsonNode node, String prefix) {
    List<String> paths = new ArrayList<>();
    node.fieldNames()
        .forEachRemaining(
            name -> {
              JsonNode child = node.get(name);
              if (prefix.isEmpty() && (name.equals("apiVersion") || name.equals("kind"))) {
                return;
              }
              // A mapping the records hold whole (admissionFairSharing.resourceWeights) is a leaf.
              if (child.isObject() && !leaves().contains(prefix + name)) {
                paths.addAll(documentLeaves(child, prefix + name + "."));
              } else {
                paths.add(prefix + name);
              }
            });
    return paths;
  }

  private static String checksumOf(List<JsonNode> objects) {
    return one(objects, "Deployment")
        .at("/spec/template/metadata/annotations/checksum~1config")
        .asText();
  }

  private static JsonNode one(List<JsonNode> objects, String kind) {
    List<JsonNode> found =
        objects.stream().filter(o -> o.path("kind").asText().equals(kind)).toList();
    assertThat(found).as(kind).hasSize(1);
    return found.get(0);
  }

  private static JsonNode one(List<JsonNode> objects, String kind, String name) {
    return objects.stream()
        .filter(o -> o.path("kind").asText().equals(kind))
        .filter(o -> o.at("/metadata/name").asText().equals(name))
        .findFirst()
        .orElseThrow(() -> new AssertionError(kind + " " + name));
  }

  private static JsonNode named(JsonNode list, String name) {
    for (JsonNode item : list) {
      if (item.path("name").asText().equals(name)) {
        return item;
      }
    }
    throw new AssertionError("no " + name + " in " + list);
  }

  private static Map<String, String> env(JsonNode container) {
    Map<String, String> env = new LinkedHashMap<>();
    container.path("env").forEach(e -> env.put(e.path("name").asText(), e.path("value").asText()));
    return env;
  }
}
