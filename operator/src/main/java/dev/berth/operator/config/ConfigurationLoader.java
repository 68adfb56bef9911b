package dev.berth.operator.config;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.berth.engine.FairSharingStrategy;
import dev.berth.webhook.integration.Framework;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads Berth's {@link Configuration} once, at start: the YAML file (if any), then the environment
 * variables that override its fields ({@link EnvironmentOverrides}: a variable set wins over the
 * file), then every value checked. A field nobody knows, a value of the wrong kind or out of range,
 * is refused with its path ({@code clientConnection.qps: must be > 0, got 0}), all of them at once,
 * and no Configuration is made. The file is not watched: a change takes effect at the next start
 * (the chart's checksum annotation restarts the pods when its ConfigMap changes).
 */
public final class ConfigurationLoader {
  private static final Logger log = LoggerFactory.getLogger(ConfigurationLoader.class);

  /** The variable naming the file, when no {@code --config} argument does. */
  public static final String FILE_VARIABLE = "BERTH_CONFIG";

  public static final String FILE_ARGUMENT = "--config";

  /** Kueue's framework names of the integrations Berth has: the registry's. */
  static final List<String> FRAMEWORKS = Framework.frameworkNames();

  /** Kueue's fair-sharing preemption strategies, all of which Berth has. */
  private static final List<String> STRATEGIES =
      java.util.Arrays.stream(FairSharingStrategy.values()).map(Enum::name).toList();

  static final List<String> EXCLUDED_TAINT_KEYS =
      List.of(
          "node.kubernetes.io/not-ready",
          "node.kubernetes.io/unreachable",
          "node.kubernetes.io/unschedulable",
          "node.kubernetes.io/network-unavailable",
          "node.kubernetes.io/out-of-service",
          "node.cloudprovider.kubernetes.io/shutdown",
          "ToBeDeletedByClusterAutoscaler",
          "berth.dev/maintenance");

  /** The DCGM series the join can read (each with its scale, see UtilizationSettings). */
  static final Set<String> METRICS =
      new TreeSet<>(
          Set.of(
              "DCGM_FI_DEV_GPU_UTIL", "DCGM_FI_PROF_SM_ACTIVE", "DCGM_FI_PROF_GR_ENGINE_ACTIVE"));

  private static final ObjectMapper YAML =
      new ObjectMapper(new YAMLFactory()).enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);

  private ConfigurationLoader() {}

  /** Every default: no file, no variable. */
  public static Configuration defaults() {
    return load((String) null, Map.of());
  }

  /**
   * The defaults with the process's environment variables over them, and no file: for an operator
   * started inside another program (local mode, the tests).
   *
   * @throws ConfigurationException naming every wrong variable
   */
  public static Configuration fromEnvironment() {
    return fromEnvironment(ProcessEnvironment.variables());
  }

  /** The defaults with these variables over them, and no file. */
  public static Configuration fromEnvironment(Map<String, String> env) {
    return load((String) null, env);
  }

  /**
   * The process's configuration: the file named by {@code --config PATH} (or {@code
   * --config=PATH}), else by {@value #FILE_VARIABLE}, else none; with the process's environment
   * over it.
   *
   * @throws ConfigurationException naming every wrong field, or the file that cannot be read
   */
  public static Configuration fromProcess(String[] args) {
    Map<String, String> env = ProcessEnvironment.variables();
    Path file = file(args, env);
    Configuration configuration = file == null ? load((String) null, env) : load(file, env);
    log.info(
        "configuration {}, read once at start: a change takes effect when the operator restarts",
        file == null ? "from defaults and environment variables (no file)" : "read from " + file);
    return configuration;
  }

  /** The file the arguments or the environment name; null when neither does. */
  static Path file(String[] args, Map<String, String> env) {
    for (int i = 0; i < args.length; i++) {
      if (args[i].equals(FILE_ARGUMENT)) {
        if (i + 1 == args.length || args[i + 1].isBlank()) {
          throw new ConfigurationException(
              FILE_ARGUMENT, List.of(FILE_ARGUMENT + ": names no file (--config PATH)"));
        }
        return Path.of(args[i + 1]);
      }
      if (args[i].startsWith(FILE_ARGUMENT + "=")) {
        return Path.of(args[i].substring(FILE_ARGUMENT.length() + 1));
      }
    }
    String named = env.get(FILE_VARIABLE);
    return named == null || named.isBlank() ? null : Path.of(named.trim());
  }

  /** The file at {@code path} with {@code env} over it. */
  public static Configuration load(Path path, Map<String, String> env) {
    String yaml;
    try {
      yaml = Files.readString(path);
    } catch (IOException e) {
      throw new ConfigurationException(
          path.toString(), List.of(path + ": cannot be read (" + e + ")"));
    }
    return read(yaml, path.toString(), env);
  }

  /**
   * {@code yaml} (null: no file) with {@code env} over it.
   *
   * @throws ConfigurationException naming every wrong field
   */
  public static Configuration load(String yaml, Map<String, String> env) {
    return read(yaml, yaml == null ? "(no file)" : "(text)", env);
  }

  private static Configuration read(String yaml, String source, Map<String, String> env) {
    List<String> errors = new ArrayList<>();
    ObjectNode document = parse(yaml, errors);
    if (!errors.isEmpty()) {
      throw new ConfigurationException(source, errors);
    }
    Map<String, String> sources = new HashMap<>();
    EnvironmentOverrides.apply(document, env, errors, sources);
    Fields root = new Fields(document, "", errors, sources);
    if (yaml != null) {
      header(root, "apiVersion", Configuration.API_VERSION);
      header(root, "kind", Configuration.KIND);
    }
    Configuration configuration = configuration(root);
    if (!errors.isEmpty()) {
      throw new ConfigurationException(source, errors);
    }
    return configuration;
  }

  private static ObjectNode parse(String yaml, List<String> errors) {
    if (yaml == null || yaml.isBlank()) {
      return JsonNodeFactory.instance.objectNode();
    }
    try {
      JsonNode tree = YAML.readTree(yaml);
      if (tree == null || tree.isMissingNode() || tree.isNull()) {
        return JsonNodeFactory.instance.objectNode();
      }
      if (!tree.isObject()) {
        errors.add("(document): must be a mapping");
        return null;
      }
      return (ObjectNode) tree;
    } catch (JsonProcessingException e) {
      errors.add("(document): not YAML: " + e.getOriginalMessage());
      return null;
    }
  }

  private static void header(Fields root, String name, String expected) {
    if (root.value(name) == null) {
      root.refuse(name, "required: " + expected);
      return;
    }
    String value = root.text(name, expected, false);
    if (!value.equals(expected)) {
      root.refuse(name, "must be " + expected + ", got \"" + value + "\"");
    }
  }

  private static Configuration configuration(Fields root) {
    String namespace = name(root, "namespace", "berth-system", DNS_LABEL);
    Configuration c =
        new Configuration(
            namespace,
            leaderElection(root.section("leaderElection")),
            metrics(root.section("metrics")),
            webhook(root.section("webhook"), namespace),
            internalCertManagement(root.section("internalCertManagement")),
            clientConnection(root.section("clientConnection")),
            waitForPodsReady(root.section("waitForPodsReady")),
            fairSharing(root.section("fairSharing")),
            integrations(root.section("integrations")),
            resources(root.section("resources")),
            usage(root.section("usage")),
            capacity(root.section("capacity")),
            utilization(root.section("utilization")),
            visibility(root.section("visibility")),
            admissionFairSharing(root.section("admissionFairSharing")));
    root.refuseUnknownFields();
    return c;
  }

  private static Configuration.LeaderElection leaderElection(Fields f) {
    Configuration.LeaderElection s =
        new Configuration.LeaderElection(
            f.bool("leaderElect", true),
            name(f, "resourceName", "berth-leader", DNS_SUBDOMAIN),
            // A replica that lost the Lease must stop deciding at once; exiting is the sure way.
            f.bool("exitOnLostLease", true));
    f.refuseUnknownFields();
    return s;
  }

  /** A Namespace's or a Service's name (RFC 1123 label). */
  private static final String DNS_LABEL = "[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?";

  /** A Lease's, a Secret's or a webhook configuration's name (RFC 1123 subdomain). */
  private static final String DNS_SUBDOMAIN =
      "(?=.{1,253}$)[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";

  /** The name of a Kubernetes object, checked as the API server would check it. */
  private static String name(Fields f, String field, String otherwise, String pattern) {
    String value = f.text(field, otherwise, false);
    if (!value.matches(pattern)) {
      f.refuse(
          field,
          "must be a "
              + (pattern.equals(DNS_LABEL) ? "DNS label" : "DNS subdomain")
              + " (lowercase letters, digits and '-'), got \""
              + value
              + "\"");
      return otherwise;
    }
    return value;
  }

  private static Configuration.Metrics metrics(Fields f) {
    Configuration.Metrics s = new Configuration.Metrics(f.port("port", 8080));
    f.refuseUnknownFields();
    return s;
  }

  private static Configuration.Webhook webhook(Fields f, String namespace) {
    Configuration.Webhook s =
        new Configuration.Webhook(
            f.bool("enable", true),
            f.port("port", 9443),
            (int) f.whole("threads", 16, 1, 1024),
            f.text("certDir", "/tmp/berth-certs", false),
            f.text("operatorIdentity", "system:serviceaccount:" + namespace + ":berth", false),
            f.bool("manageJobsWithoutQueueName", true));
    f.refuseUnknownFields();
    return s;
  }

  private static Configuration.InternalCertManagement internalCertManagement(Fields f) {
    Configuration.InternalCertManagement s =
        new Configuration.InternalCertManagement(
            f.bool("enable", true),
            name(f, "webhookServiceName", "berth-webhook", DNS_LABEL),
            name(f, "webhookSecretName", "berth-webhook-ca", DNS_SUBDOMAIN),
            name(f, "validatingWebhookConfigurationName", "berth-validating", DNS_SUBDOMAIN),
            name(f, "mutatingWebhookConfigurationName", "berth-mutating", DNS_SUBDOMAIN));
    f.refuseUnknownFields();
    return s;
  }

  private static Configuration.ClientConnection clientConnection(Fields f) {
    double qps = f.positive("qps", 100);
    int burst = (int) f.whole("burst", 200, 1, Integer.MAX_VALUE);
    int writers = (int) f.whole("writers", 8, 1, 256);
    int queue = (int) f.whole("queue", 20_000, 1, Integer.MAX_VALUE);
    if (queue < writers) {
      f.refuse(
          "queue", "must be at least clientConnection.writers (" + writers + "), got " + queue);
    }
    double pending = f.positive("pendingWorkloadQps", 5);
    if (pending > qps) {
      f.refuse(
          "pendingWorkloadQps",
          "must be at most clientConnection.qps (" + qps + "), got " + pending);
      pending = Math.min(5, qps);
    }
    double queueStatus = f.positive("queueStatusQps", 10);
    if (queueStatus > qps) {
      f.refuse(
          "queueStatusQps",
          "must be at most clientConnection.qps (" + qps + "), got " + queueStatus);
      queueStatus = Math.min(10, qps);
    }
    Duration silence = f.duration("watchSilence", Duration.ofSeconds(120));
    Configuration.ClientConnection s =
        new Configuration.ClientConnection(
            qps,
            burst,
            writers,
            Math.max(queue, writers),
            pending,
            queueStatus,
            silence,
            f.bool("nativeTls", true));
    f.refuseUnknownFields();
    return s;
  }

  private static Configuration.WaitForPodsReady waitForPodsReady(Fields f) {
    boolean enable = f.bool("enable", false);
    // A timeout of 0 would evict every workload at admission: at least one second.
    Duration timeout = atLeastASecond(f, "timeout", Duration.ofMinutes(5));
    boolean block = f.bool("blockAdmission", false);
    Duration recovery = atLeastASecond(f, "recoveryTimeout", null);
    Fields r = f.section("requeuingStrategy");
    String timestamp = r.text("timestamp", "Eviction", false);
    if (!timestamp.equals("Eviction") && !timestamp.equals("Creation")) {
      r.refuse("timestamp", "must be Eviction or Creation, got \"" + timestamp + "\"");
      timestamp = "Eviction";
    }
    Configuration.RequeuingStrategy requeuing =
        new Configuration.RequeuingStrategy(
            timestamp,
            r.whole("backoffBaseSeconds", 60, 0, Integer.MAX_VALUE),
            r.whole("backoffMaxSeconds", 3600, 0, Integer.MAX_VALUE),
            r.optionalWhole("backoffLimitCount", 0));
    r.refuseUnknownFields();
    f.refuseUnknownFields();
    return new Configuration.WaitForPodsReady(enable, timeout, block, recovery, requeuing);
  }

  private static Duration atLeastASecond(Fields f, String name, Duration otherwise) {
    Duration d = f.duration(name, otherwise);
    if (d != null && d.compareTo(Duration.ofSeconds(1)) < 0) {
      f.refuse(name, "must be at least 1s, got " + Durations.format(d));
      return otherwise;
    }
    return d;
  }

  private static Configuration.FairSharing fairSharing(Fields f) {
    boolean enable = f.bool("enable", false);
    List<String> strategies =
        f.texts("preemptionStrategies", Configuration.FairSharing.DEFAULT_STRATEGIES);
    List<FairSharingStrategy> known = new ArrayList<>();
    for (int i = 0; i < strategies.size(); i++) {
      String name = strategies.get(i);
      FairSharingStrategy strategy = strategy(name);
      if (strategy == null) {
        f.refuse(
            "preemptionStrategies[" + i + "]",
            "unknown strategy \"" + name + "\"; Berth knows " + String.join(", ", STRATEGIES));
      } else {
        known.add(strategy);
      }
    }
    if (known.size() == strategies.size()
        && !known.equals(List.of(FairSharingStrategy.LessThanOrEqualToFinalShare))) {
      // Kueue also takes [LessThanInitialShare] and both; Berth's property test
      // (MinimumRuntimeProperties) found queues taking turns preempting each other with the
      // initial-share rule, alone and after the final-share rule, so only the final-share rule
      // is accepted.
      f.refuse(
          "preemptionStrategies",
          "must be [LessThanOrEqualToFinalShare] (LessThanInitialShare lets queues take turns"
              + " preempting each other, docs/fair-sharing.md), got "
              + strategies);
    }
    f.refuseUnknownFields();
    return new Configuration.FairSharing(enable, strategies);
  }

  private static Configuration.AdmissionFairSharing admissionFairSharing(Fields f) {
    Configuration.AdmissionFairSharing d = Configuration.AdmissionFairSharing.DEFAULT;
    Duration halfLife = f.duration("usageHalfLifeTime", d.usageHalfLifeTime());
    Duration sampling = atLeastASecond(f, "usageSamplingInterval", d.usageSamplingInterval());
    Map<String, Double> weights = new java.util.TreeMap<>();
    JsonNode value = f.value("resourceWeights");
    if (value != null && !value.isObject()) {
      f.refuse("resourceWeights", "must be a mapping of resource names to weights");
    } else if (value != null) {
      value
          .fields()
          .forEachRemaining(
              e -> {
                String at = "resourceWeights[" + e.getKey() + "]";
                JsonNode w = e.getValue();
                double n = w.isNumber() ? w.doubleValue() : Double.NaN;
                if (w.isTextual()) {
                  try {
                    n = Double.parseDouble(w.textValue().trim());
                  } catch (NumberFormatException ignored) {
                    n = Double.NaN;
                  }
                }
                if (Double.isNaN(n) || Double.isInfinite(n)) {
                  f.refuse(at, "must be a number, got " + w.asText());
                } else if (n < 0) {
                  f.refuse(at, "must be >= 0, got " + w.asText());
                } else {
                  weights.put(e.getKey(), n);
                }
              });
    }
    f.refuseUnknownFields();
    return new Configuration.AdmissionFairSharing(halfLife, sampling, weights);
  }

  private static FairSharingStrategy strategy(String name) {
    return STRATEGIES.contains(name) ? FairSharingStrategy.valueOf(name) : null;
  }

  private static Configuration.Integrations integrations(Fields f) {
    List<String> frameworks = f.texts("frameworks", Framework.defaultFrameworkNames());
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < frameworks.size(); i++) {
      String name = frameworks.get(i);
      if (!FRAMEWORKS.contains(name)) {
        f.refuse(
            "frameworks[" + i + "]",
            "unknown framework \""
                + name
                + "\"; Berth integrates "
                + String.join(", ", FRAMEWORKS));
      } else if (!seen.add(name)) {
        f.refuse("frameworks[" + i + "]", "\"" + name + "\" is listed twice");
      }
    }
    for (int i = 0; i < frameworks.size(); i++) {
      String name = frameworks.get(i);
      if (FRAMEWORKS.contains(name)
          && Framework.ofName(name).runByPods()
          && !frameworks.contains(Framework.POD.frameworkName())) {
        f.refuse(
            "frameworks[" + i + "]",
            "\""
                + name
                + "\" needs \""
                + Framework.POD.frameworkName()
                + "\" too: a "
                + Framework.ofName(name).kind()
                + "'s pods are queued as plain Pods");
      }
    }
    f.refuseUnknownFields();
    return new Configuration.Integrations(
        frameworks.stream().filter(FRAMEWORKS::contains).distinct().toList());
  }

  /** A resource name as a ClusterQueue names one: an optional DNS subdomain prefix, a name. */
  private static final String RESOURCE_NAME =
      "([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?"
          + "[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?";

  private static Configuration.Resources resources(Fields f) {
    List<Configuration.DeviceClassMapping> mappings = new ArrayList<>();
    Set<String> names = new HashSet<>();
    Map<String, String> mappedTo = new HashMap<>();
    for (Fields m : f.sections("deviceClassMappings")) {
      String name = m.text("name", "", false);
      if (name.isEmpty()) {
        m.refuse("name", "required: the quota resource the classes' devices are charged to");
      } else if (!name.matches(RESOURCE_NAME)) {
        m.refuse("name", "must be a resource name such as example.com/gpu, got \"" + name + "\"");
      } else if (!names.add(name)) {
        m.refuse("name", "\"" + name + "\" is mapped twice: list all its classes in one entry");
      }
      List<String> classes = m.texts("deviceClassNames", List.of());
      if (classes.isEmpty()) {
        m.refuse("deviceClassNames", "required: at least one DeviceClass");
      }
      for (int i = 0; i < classes.size(); i++) {
        String deviceClass = classes.get(i);
        String before = mappedTo.putIfAbsent(deviceClass, name);
        if (!deviceClass.matches(DNS_SUBDOMAIN)) {
          m.refuse(
              "deviceClassNames[" + i + "]",
              "must be a DeviceClass name (a DNS subdomain), got \"" + deviceClass + "\"");
        } else if (before != null) {
          m.refuse(
              "deviceClassNames[" + i + "]",
              "DeviceClass " + deviceClass + " is already mapped to " + before);
        }
      }
      m.refuseUnknownFields();
      mappings.add(new Configuration.DeviceClassMapping(name, classes));
    }
    f.refuseUnknownFields();
    return new Configuration.Resources(mappings);
  }

  private static Configuration.Usage usage(Fields f) {
    Configuration.Usage s =
        new Configuration.Usage(f.duration("reportInterval", Duration.ofSeconds(10)));
    f.refuseUnknownFields();
    return s;
  }

  private static Configuration.Capacity capacity(Fields f) {
    Configuration.Capacity s =
        new Configuration.Capacity(f.texts("excludedTaintKeys", EXCLUDED_TAINT_KEYS));
    f.refuseUnknownFields();
    return s;
  }

  private static Configuration.Utilization utilization(Fields f) {
    String url = f.text("prometheusUrl", "", true);
    URI prometheus = url.isEmpty() ? null : prometheus(f, url);
    String metric = f.text("metric", "DCGM_FI_DEV_GPU_UTIL", false);
    if (!METRICS.contains(metric)) {
      f.refuse(
          "metric", "must be one of " + String.join(", ", METRICS) + ", got \"" + metric + "\"");
      metric = "DCGM_FI_DEV_GPU_UTIL";
    }
    Configuration.Utilization s =
        new Configuration.Utilization(
            prometheus,
            metric,
            label(f, "namespaceLabel", "namespace"),
            label(f, "podLabel", "pod"),
            f.duration("delay", Duration.ofSeconds(60)),
            f.duration("giveUp", Duration.ofSeconds(600)));
    f.refuseUnknownFields();
    return s;
  }

  private static URI prometheus(Fields f, String url) {
    try {
      URI uri = URI.create(url.replaceAll("/+$", ""));
      if (("http".equals(uri.getScheme()) || "https".equals(uri.getScheme()))
          && uri.getHost() != null) {
        return uri;
      }
    } catch (IllegalArgumentException e) {
      // refused below
    }
    f.refuse("prometheusUrl", "must be an http:// or https:// URL, got \"" + url + "\"");
    return null;
  }

  private static String label(Fields f, String name, String otherwise) {
    String value = f.text(name, otherwise, false);
    if (!value.matches("[a-zA-Z_][a-zA-Z0-9_]*")) {
      f.refuse(name, "not a Prometheus label name: \"" + value + "\"");
      return otherwise;
    }
    return value;
  }

  private static Configuration.Visibility visibility(Fields f) {
    Configuration.Visibility s =
        new Configuration.Visibility(f.port("port", 8443), f.bool("dashboard", false));
    f.refuseUnknownFields();
    return s;
  }
}
