package dev.berth.operator.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigurationLoaderTest {
  private static final String HEADER =
      "apiVersion: config.berth.dev/v1beta1\nkind: Configuration\n";

  private static Configuration load(String body) {
    return ConfigurationLoader.load(HEADER + body, Map.of());
  }

  /** The errors of a refused document, one per wrong field. */
  private static List<String> errors(String yaml, Map<String, String> env) {
    try {
      ConfigurationLoader.load(yaml, env);
    } catch (ConfigurationException e) {
      assertThat(e.getMessage()).contains(String.join("\n  ", e.errors()));
      return e.errors();
    }
    throw new AssertionError("accepted: " + yaml + " with " + env);
  }

  private static List<String> errors(String body) {
    return errors(HEADER + body, Map.of());
  }

  @Test
  void aFileWithOnlyItsHeaderIsTheDefaults() {
    assertThat(load("")).isEqualTo(ConfigurationLoader.defaults());
    assertThat(ConfigurationLoader.fromEnvironment(Map.of()))
        .isEqualTo(ConfigurationLoader.defaults());
  }

  @Test
  void everySectionIsRead() {
    Configuration c =
        load(
            """
            namespace: batch
            leaderElection: {leaderElect: false, resourceName: lease, exitOnLostLease: false}
            metrics: {port: 9090}
            webhook:
              enable: false
              port: 9444
              threads: 4
              certDir: /certs
              operatorIdentity: system:serviceaccount:batch:op
              manageJobsWithoutQueueName: false
            internalCertManagement:
              enable: false
              webhookServiceName: svc
              webhookSecretName: ca
              validatingWebhookConfigurationName: v
              mutatingWebhookConfigurationName: m
            clientConnection:
              qps: 50.5
              burst: 20
              writers: 2
              queue: 10
              pendingWorkloadQps: 1
              queueStatusQps: 2.5
              watchSilence: 1m30s
              nativeTls: false
            waitForPodsReady:
              enable: true
              timeout: 10m
              blockAdmission: true
              recoveryTimeout: 2m
              requeuingStrategy:
                timestamp: Creation
                backoffBaseSeconds: 5
                backoffMaxSeconds: 50
                backoffLimitCount: 3
            fairSharing: {enable: true}
            integrations: {frameworks: [jobset.x-k8s.io/jobset]}
            resources:
              deviceClassMappings:
              - {name: nvidia.com/gpu, deviceClassNames: [gpu.nvidia.com]}
              - {name: nvidia.com/mig-1g, deviceClassNames: [mig-1g.nvidia.com]}
            usage: {reportInterval: 0s}
            capacity: {excludedTaintKeys: [example.com/drain]}
            utilization:
              prometheusUrl: http://prometheus:9090/
              metric: DCGM_FI_PROF_SM_ACTIVE
              namespaceLabel: exported_namespace
              podLabel: exported_pod
              delay: 30s
              giveUp: 1h
            visibility: {port: 0, dashboard: true}
            admissionFairSharing: {usageHalfLifeTime: 24h, usageSamplingInterval: 1m, resourceWeights: {cpu: 2}}
            """);
    assertThat(c)
        .isEqualTo(
            new Configuration(
                "batch",
                new Configuration.LeaderElection(false, "lease", false),
                new Configuration.Metrics(9090),
                new Configuration.Webhook(
                    false, 9444, 4, "/certs", "system:serviceaccount:batch:op", false),
                new Configuration.InternalCertManagement(false, "svc", "ca", "v", "m"),
                new Configuration.ClientConnection(
                    50.5, 20, 2, 10, 1, 2.5, Duration.ofSeconds(90), false),
                new Configuration.WaitForPodsReady(
                    true,
                    Duration.ofMinutes(10),
                    true,
                    Duration.ofMinutes(2),
                    new Configuration.RequeuingStrategy("Creation", 5, 50, 3)),
                new Configuration.FairSharing(true),
                new Configuration.Integrations(List.of("jobset.x-k8s.io/jobset")),
                new Configuration.Resources(
                    List.of(
                        new Configuration.DeviceClassMapping(
                            "nvidia.com/gpu", List.of("gpu.nvidia.com")),
                        new Configuration.DeviceClassMapping(
                            "nvidia.com/mig-1g", List.of("mig-1g.nvidia.com")))),
                new Configuration.Usage(Duration.ZERO),
                new Configuration.Capacity(List.of("example.com/drain")),
                new Configuration.Utilization(
                    URI.create("http://prometheus:9090"),
                    "DCGM_FI_PROF_SM_ACTIVE",
                    "exported_namespace",
                    "exported_pod",
                    Duration.ofSeconds(30),
                    Duration.ofHours(1)),
                new Configuration.Visibility(0, true),
                new Configuration.AdmissionFairSharing(
                    Duration.ofHours(24), Duration.ofMinutes(1), java.util.Map.of("cpu", 2.0))));
  }

  @Test
  void theOperatorIdentityDefaultsToTheServiceAccountOfItsNamespace() {
    assertThat(load("namespace: batch\n").webhook().operatorIdentity())
        .isEqualTo("system:serviceaccount:batch:berth");
  }

  @Test
  void nullIsTheDefault() {
    assertThat(load("waitForPodsReady:\n  recoveryTimeout: null\n  timeout: null\n"))
        .isEqualTo(ConfigurationLoader.defaults());
  }

  @Test
  void unknownFieldsAreRefusedWithTheirPath() {
    assertThat(errors("clientConection: {qps: 5}\n"))
        .containsExactly("clientConection: unknown field");
    assertThat(errors("clientConnection: {qsp: 5}\n"))
        .containsExactly("clientConnection.qsp: unknown field");
    assertThat(errors("waitForPodsReady:\n  requeuingStrategy: {backoffLimit: 3}\n"))
        .containsExactly("waitForPodsReady.requeuingStrategy.backoffLimit: unknown field");
  }

  @Test
  void deviceClassMappingsAreRefusedWithTheExactPath() {
    assertThat(
            errors(
                "resources:\n"
                    + "  deviceClassMappings:\n"
                    + "  - {name: example.com/gpu, deviceClassNames: [gpu.example.com]}\n"
                    + "  - {name: example.com/gpu, deviceClassNames: [Bad_Class, gpu.example.com]}\n"
                    + "  - {deviceClassNames: [], count: 2}\n"
                    + "  - 7\n"))
        .containsExactly(
            // An item that is not a mapping is refused as the list is read, before the others.
            "resources.deviceClassMappings[3]: must be a mapping, got 7",
            "resources.deviceClassMappings[1].name: \"example.com/gpu\" is mapped twice: list all"
                + " its classes in one entry",
            "resources.deviceClassMappings[1].deviceClassNames[0]: must be a DeviceClass name (a"
                + " DNS subdomain), got \"Bad_Class\"",
            "resources.deviceClassMappings[1].deviceClassNames[1]: DeviceClass gpu.example.com is"
                + " already mapped to example.com/gpu",
            "resources.deviceClassMappings[2].name: required: the quota resource the classes'"
                + " devices are charged to",
            "resources.deviceClassMappings[2].deviceClassNames: required: at least one"
                + " DeviceClass",
            "resources.deviceClassMappings[2].count: unknown field");
    assertThat(errors("resources: {deviceClassMappings: {name: x}}\n"))
        .containsExactly("resources.deviceClassMappings: must be a list, got a mapping");
    assertThat(errors("resources:\n  deviceClassMappings: [{name: \"not a name\"}]\n"))
        .containsExactly(
            "resources.deviceClassMappings[0].name: must be a resource name such as"
                + " example.com/gpu, got \"not a name\"",
            "resources.deviceClassMappings[0].deviceClassNames: required: at least one"
                + " DeviceClass");
    Configuration c =
        ConfigurationLoader.load(
            "apiVersion: config.berth.dev/v1beta1\nkind: Configuration\nresources:\n"
                + "  deviceClassMappings:\n"
                + "  - {name: example.com/gpu, deviceClassNames: [a.example.com, b.example.com]}\n",
            Map.of());
    assertThat(c.resources().mappings().resourceFor("b.example.com")).contains("example.com/gpu");
    assertThat(c.resources().mappings().resourceFor("c.example.com")).isEmpty();
  }

  @Test
  void valuesOutOfRangeAreRefusedWithTheirPath() {
    assertThat(errors("clientConnection: {qps: 0}\n"))
        .containsExactly("clientConnection.qps: must be > 0, got 0");
    assertThat(errors("clientConnection: {writers: 300}\n"))
        .containsExactly("clientConnection.writers: must be from 1 to 256, got 300");
    assertThat(errors("metrics: {port: 70000}\n"))
        .containsExactly("metrics.port: must be from 0 to 65535, got 70000");
    assertThat(errors("waitForPodsReady: {timeout: 0s}\n"))
        .containsExactly("waitForPodsReady.timeout: must be at least 1s, got 0s");
    assertThat(errors("waitForPodsReady:\n  requeuingStrategy: {backoffLimitCount: -1}\n"))
        .containsExactly(
            "waitForPodsReady.requeuingStrategy.backoffLimitCount: must be >= 0, got -1");
  }

  @Test
  void valuesOfTheWrongKindAreRefusedWithTheirPath() {
    assertThat(errors("clientConnection: {burst: many}\n"))
        .containsExactly("clientConnection.burst: must be a whole number, got \"many\"");
    assertThat(errors("clientConnection: {qps: fast}\n"))
        .containsExactly("clientConnection.qps: must be a number, got \"fast\"");
    assertThat(errors("fairSharing: {enable: yes please}\n"))
        .containsExactly("fairSharing.enable: must be true or false, got \"yes please\"");
    assertThat(errors("usage: {reportInterval: 10}\n"))
        .containsExactly(
            "usage.reportInterval: must be a duration such as 90s, 5m or 1h30m, got 10");
    assertThat(errors("waitForPodsReady: true\n"))
        .containsExactly("waitForPodsReady: must be a mapping, got true");
    assertThat(errors("capacity: {excludedTaintKeys: a/b}\n"))
        .containsExactly("capacity.excludedTaintKeys: must be a list, got \"a/b\"");
    assertThat(errors("namespace: [a]\n"))
        .containsExactly("namespace: must be a string, got a list");
  }

  @Test
  void namesAreNamesTheApiServerWouldTake() {
    assertThat(errors("namespace: Berth System\n"))
        .containsExactly(
            "namespace: must be a DNS label (lowercase letters, digits and '-'), got \"Berth"
                + " System\"");
    assertThat(errors("leaderElection: {resourceName: Leader_1}\n"))
        .containsExactly(
            "leaderElection.resourceName: must be a DNS subdomain (lowercase letters, digits and"
                + " '-'), got \"Leader_1\"");
    assertThat(
            load("internalCertManagement: {webhookSecretName: ca.berth.dev}\n")
                .internalCertManagement()
                .webhookSecretName())
        .isEqualTo("ca.berth.dev");
  }

  @Test
  void oneFieldIsCheckedAgainstAnother() {
    assertThat(errors("clientConnection: {writers: 16, queue: 8}\n"))
        .containsExactly(
            "clientConnection.queue: must be at least clientConnection.writers (16), got 8");
    assertThat(errors("clientConnection: {qps: 10, queueStatusQps: 20}\n"))
        .containsExactly(
            "clientConnection.queueStatusQps: must be at most clientConnection.qps (10.0), got 20.0");
  }

  @Test
  void namedValuesAreOneOfTheirSet() {
    assertThat(errors("waitForPodsReady:\n  requeuingStrategy: {timestamp: Now}\n"))
        .containsExactly(
            "waitForPodsReady.requeuingStrategy.timestamp: must be Eviction or Creation, got \"Now\"");
    assertThat(errors("utilization: {prometheusUrl: \"prometheus:9090\"}\n"))
        .containsExactly(
            "utilization.prometheusUrl: must be an http:// or https:// URL, got \"prometheus:9090\"");
    assertThat(errors("utilization: {podLabel: pod-name}\n"))
        .containsExactly("utilization.podLabel: not a Prometheus label name: \"pod-name\"");
  }

  @Test
  void onlyTheIntegrationsBerthHasCanBeListed() {
    assertThat(errors("integrations:\n  frameworks: [batch/job, kubeflow.org/tfjob, batch/job]\n"))
        .containsExactly(
            "integrations.frameworks[1]: unknown framework \"kubeflow.org/tfjob\"; Berth"
                + " integrates batch/job, jobset.x-k8s.io/jobset, pod, deployment, statefulset,"
                + " leaderworkerset.x-k8s.io/leaderworkerset, ray.io/rayjob, ray.io/raycluster,"
                + " kubeflow.org/pytorchjob, kubeflow.org/mpijob, trainer.kubeflow.org/trainjob",
            "integrations.frameworks[2]: \"batch/job\" is listed twice");
    assertThat(load("integrations: {frameworks: []}\n").integrations().frameworks()).isEmpty();
  }

  @Test
  void servingKindsNeedThePodIntegrationAndAreOffByDefault() {
    assertThat(errors("integrations:\n  frameworks: [batch/job, deployment]\n"))
        .containsExactly(
            "integrations.frameworks[1]: \"deployment\" needs \"pod\" too: a Deployment's pods are"
                + " queued as plain Pods");
    assertThat(load("integrations: {frameworks: [pod, deployment]}\n").integrations().frameworks())
        .containsExactly("pod", "deployment");
    assertThat(load("").integrations().frameworks())
        .containsExactly(
            "batch/job", "jobset.x-k8s.io/jobset", "pod", "ray.io/rayjob", "ray.io/raycluster");
  }

  @Test
  void fairSharingPreemptionStrategiesAreTheFinalShareRuleOnly() {
    assertThat(load("fairSharing: {enable: true}\n").fairSharing().preemptionStrategies())
        .containsExactly("LessThanOrEqualToFinalShare");
    assertThat(
            load("fairSharing:\n  enable: true\n"
                    + "  preemptionStrategies: [LessThanOrEqualToFinalShare]\n")
                .fairSharing()
                .preemptionStrategies())
        .containsExactly("LessThanOrEqualToFinalShare");
    assertThat(errors("fairSharing:\n  preemptionStrategies: [LessThanInitialShare]\n"))
        .containsExactly(
            "fairSharing.preemptionStrategies: must be [LessThanOrEqualToFinalShare]"
                + " (LessThanInitialShare lets queues take turns preempting each other,"
                + " docs/fair-sharing.md), got [LessThanInitialShare]");
    assertThat(
            errors(
                "fairSharing:\n"
                    + "  preemptionStrategies: [LessThanOrEqualToFinalShare, LessThanInitialShare]\n"))
        .containsExactly(
            "fairSharing.preemptionStrategies: must be [LessThanOrEqualToFinalShare]"
                + " (LessThanInitialShare lets queues take turns preempting each other,"
                + " docs/fair-sharing.md), got [LessThanOrEqualToFinalShare, LessThanInitialShare]");
    assertThat(
            errors(
                "fairSharing:\n  preemptionStrategies: [LessThanOrEqualToFinalShare, Fastest]\n"))
        .containsExactly(
            "fairSharing.preemptionStrategies[1]: unknown strategy \"Fastest\"; Berth knows"
                + " LessThanOrEqualToFinalShare, LessThanInitialShare");
    assertThat(
            errors(
                "fairSharing:\n"
                    + "  preemptionStrategies: [LessThanInitialShare, LessThanOrEqualToFinalShare]\n"))
        .containsExactly(
            "fairSharing.preemptionStrategies: must be [LessThanOrEqualToFinalShare]"
                + " (LessThanInitialShare lets queues take turns preempting each other,"
                + " docs/fair-sharing.md), got [LessThanInitialShare, LessThanOrEqualToFinalShare]");
    assertThat(errors("fairSharing: {preemptionStrategies: []}\n"))
        .singleElement()
        .asString()
        .startsWith("fairSharing.preemptionStrategies: must be [LessThanOrEqualToFinalShare]");
    assertThat(errors("fairSharing: {preemptionStrategies: LessThanInitialShare}\n"))
        .containsExactly(
            "fairSharing.preemptionStrategies: must be a list, got \"LessThanInitialShare\"");
  }

  @Test
  void admissionFairSharingIsReadWithKueuesNames() {
    Configuration.AdmissionFairSharing afs =
        load("admissionFairSharing:\n  usageHalfLifeTime: 24h\n  usageSamplingInterval: 30s\n"
                + "  resourceWeights: {nvidia.com/gpu: 100, memory: 0, cpu: \"2.5\"}\n")
            .admissionFairSharing();
    assertThat(afs.usageHalfLifeTime()).isEqualTo(java.time.Duration.ofHours(24));
    assertThat(afs.usageSamplingInterval()).isEqualTo(java.time.Duration.ofSeconds(30));
    assertThat(afs.resourceWeights())
        .containsExactlyInAnyOrderEntriesOf(
            Map.of("nvidia.com/gpu", 100.0, "memory", 0.0, "cpu", 2.5));
    assertThat(load("admissionFairSharing: {usageHalfLifeTime: 0s}\n").admissionFairSharing())
        .extracting(Configuration.AdmissionFairSharing::usageHalfLifeTime)
        .isEqualTo(java.time.Duration.ZERO);
  }

  @Test
  void admissionFairSharingMistakesAreRefusedWithTheirPath() {
    assertThat(
            errors(
                "admissionFairSharing:\n  usageHalfLifeTime: a week\n"
                    + "  usageSamplingInterval: 0s\n"
                    + "  resourceWeights: {cpu: -1, nvidia.com/gpu: lots}\n"))
        .containsExactly(
            "admissionFairSharing.usageHalfLifeTime: must be a duration such as 90s, 5m or 1h30m,"
                + " got \"a week\"",
            "admissionFairSharing.usageSamplingInterval: must be at least 1s, got 0s",
            "admissionFairSharing.resourceWeights[cpu]: must be >= 0, got -1",
            "admissionFairSharing.resourceWeights[nvidia.com/gpu]: must be a number, got lots");
    assertThat(errors("admissionFairSharing: {resourceWeights: [cpu]}\n"))
        .containsExactly(
            "admissionFairSharing.resourceWeights: must be a mapping of resource names to weights");
    assertThat(errors("admissionFairSharing: {halfLife: 1h}\n"))
        .containsExactly("admissionFairSharing.halfLife: unknown field");
  }

  @Test
  void everyMistakeIsReportedAtOnce() {
    assertThat(errors("metrics: {port: -1}\nvisibility: {dashbord: true}\nextra: 1\n"))
        .containsExactly(
            "metrics.port: must be from 0 to 65535, got -1",
            "visibility.dashbord: unknown field",
            "extra: unknown field");
  }

  @Test
  void theHeaderIsRequiredInAFile() {
    assertThat(errors("namespace: x\n", Map.of()))
        .containsExactly(
            "apiVersion: required: config.berth.dev/v1beta1", "kind: required: Configuration");
    assertThat(errors("apiVersion: config.kueue.x-k8s.io/v1beta1\nkind: Configuration\n", Map.of()))
        .containsExactly(
            "apiVersion: must be config.berth.dev/v1beta1, got \"config.kueue.x-k8s.io/v1beta1\"");
  }

  @Test
  void aDocumentThatIsNotYamlOrNotAMappingIsRefused() {
    assertThat(errors(HEADER + "metrics: {port: 8080\n", Map.of()))
        .singleElement()
        .asString()
        .startsWith("(document): not YAML");
    assertThat(errors("- a\n- b\n", Map.of())).containsExactly("(document): must be a mapping");
    assertThat(errors(HEADER + "metrics: {port: 1}\nmetrics: {port: 2}\n", Map.of()))
        .singleElement()
        .asString()
        .contains("Duplicate field 'metrics'");
  }

  @Test
  void aVariableWinsOverTheFile() {
    Configuration c =
        ConfigurationLoader.load(
            HEADER + "clientConnection: {qps: 50, writers: 4}\nfairSharing: {enable: false}\n",
            Map.of("BERTH_WRITE_QPS", "80", "BERTH_FAIR_SHARING", "true", "BERTH_WRITERS", " "));
    assertThat(c.clientConnection().qps()).isEqualTo(80);
    assertThat(c.clientConnection().writers()).as("a blank variable is unset").isEqualTo(4);
    assertThat(c.fairSharing().enable()).isTrue();
  }

  @Test
  void aWrongVariableIsRefusedWithItsFieldAndItsName() {
    assertThat(errors(HEADER, Map.of("BERTH_WRITE_QPS", "0")))
        .containsExactly("clientConnection.qps (BERTH_WRITE_QPS): must be > 0, got 0");
    assertThat(errors(HEADER, Map.of("BERTH_WAIT_FOR_PODS_READY_TIMEOUT_SECONDS", "5m")))
        .containsExactly(
            "waitForPodsReady.timeout (BERTH_WAIT_FOR_PODS_READY_TIMEOUT_SECONDS): must be a whole"
                + " number of seconds, 0 or more, got \"5m\"");
    assertThat(errors(HEADER, Map.of("BERTH_CERT_MODE", "vault")))
        .containsExactly(
            "internalCertManagement.enable (BERTH_CERT_MODE): must be self-signed or"
                + " cert-manager, got \"vault\"");
    assertThat(errors(null, Map.of("BERTH_LEADER_ELECTION", "ja")))
        .containsExactly(
            "leaderElection.leaderElect (BERTH_LEADER_ELECTION): must be true or false, got \"ja\"");
  }

  @Test
  void variablesInTheirOwnForms() {
    Configuration c =
        ConfigurationLoader.fromEnvironment(
            Map.of(
                "BERTH_CERT_MODE", "cert-manager",
                "BERTH_WAIT_FOR_PODS_READY_TIMEOUT_SECONDS", "600",
                "BERTH_CAPACITY_EXCLUDED_TAINT_KEYS", " a/b, ,c ",
                "BERTH_WAIT_FOR_PODS_READY_BACKOFF_LIMIT_COUNT", "5"));
    assertThat(c.internalCertManagement().enable()).isFalse();
    assertThat(c.waitForPodsReady().timeout()).isEqualTo(Duration.ofMinutes(10));
    assertThat(c.capacity().excludedTaintKeys()).containsExactly("a/b", "c");
    assertThat(c.waitForPodsReady().requeuingStrategy().backoffLimitCount()).isEqualTo(5);
    assertThat(ConfigurationLoader.fromEnvironment(Map.of("BERTH_CERT_MODE", "self-signed")))
        .isEqualTo(ConfigurationLoader.defaults());
  }

  @Test
  void everyVariableOverridesAFieldThatExists() {
    Map<String, String> env = new java.util.HashMap<>();
    for (EnvironmentOverrides.Override o : EnvironmentOverrides.ALL) {
      String value =
          switch (o.form()) {
            case SECONDS -> "7";
            case LIST -> "a/b";
            case CERT_MODE -> "cert-manager";
            case TEXT -> "@";
          };
      env.put(o.variable(), value);
    }
    // "@" is a wrong value for most fields: each is reported at its path, none is unknown.
    List<String> errors = errors(null, env);
    assertThat(errors).noneMatch(e -> e.contains("unknown field"));
    assertThat(EnvironmentOverrides.ALL)
        .extracting(EnvironmentOverrides.Override::variable)
        .doesNotHaveDuplicates()
        .allMatch(v -> v.startsWith("BERTH_"));
  }

  @Test
  void theFileIsNamedByTheArgumentElseByTheVariable(@TempDir Path dir) throws Exception {
    Path file = Files.writeString(dir.resolve("config.yaml"), HEADER + "metrics: {port: 1234}\n");
    assertThat(ConfigurationLoader.file(new String[] {"--config", file.toString()}, Map.of()))
        .isEqualTo(file);
    assertThat(ConfigurationLoader.file(new String[] {"--config=" + file}, Map.of()))
        .isEqualTo(file);
    assertThat(ConfigurationLoader.file(new String[0], Map.of("BERTH_CONFIG", file.toString())))
        .isEqualTo(file);
    assertThat(
            ConfigurationLoader.file(
                new String[] {"--config", "/elsewhere"}, Map.of("BERTH_CONFIG", file.toString())))
        .isEqualTo(Path.of("/elsewhere"));
    assertThat(ConfigurationLoader.file(new String[0], Map.of())).isNull();
    assertThatThrownBy(() -> ConfigurationLoader.file(new String[] {"--config"}, Map.of()))
        .isInstanceOf(ConfigurationException.class)
        .hasMessageContaining("--config: names no file");
    assertThat(ConfigurationLoader.load(file, Map.of()).metrics().port()).isEqualTo(1234);
    assertThatThrownBy(() -> ConfigurationLoader.load(dir.resolve("missing.yaml"), Map.of()))
        .isInstanceOf(ConfigurationException.class)
        .hasMessageContaining("missing.yaml: cannot be read");
  }

  @Test
  void durationsAreKueuesText() {
    assertThat(Durations.parse("1h30m")).isEqualTo(Duration.ofMinutes(90));
    assertThat(Durations.parse("0")).isZero();
    assertThat(Durations.parse("90")).isNull();
    assertThat(Durations.parse("1.5h")).isNull();
    assertThat(Durations.parse("")).isNull();
    for (long s : new long[] {0, 1, 59, 60, 61, 3600, 3661, 86400}) {
      assertThat(Durations.parse(Durations.format(Duration.ofSeconds(s))))
          .isEqualTo(Duration.ofSeconds(s));
    }
    assertThat(Durations.format(Duration.ofSeconds(300))).isEqualTo("5m");
  }
}
