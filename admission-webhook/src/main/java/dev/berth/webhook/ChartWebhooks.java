package dev.berth.webhook;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfiguration;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingWebhookConfiguration;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.WebhookClientConfig;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.WebhookClientConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * Berth's webhook configurations as the Helm chart renders them ({@code
 * helm/berth/templates/webhooks.yaml}, through the real {@code helm template}): the one list of
 * Berth's webhooks. The chart installs it; local mode, the end-to-end tests and the benchmarks
 * register it with this class, pointed at a webhook server on this machine, so that every failure
 * policy, rule, selector, match condition and timeout they run under is the chart's.
 *
 * <p>Use:
 *
 * <pre>{@code
 * // the chart's defaults, release "berth" in namespace "berth-system"
 * ChartWebhooks.render()
 *     .onLoopback(port)                  // https://127.0.0.1:<port><the chart's path>
 *     .withCaBundle(ca.certificatePem()) // or leave it to CaBundlePatcher / WebhookRuntime
 *     .install(admin);                   // server-side apply of both configurations
 *
 * // other chart values, as helm --set takes them
 * ChartWebhooks.render(ChartWebhooks.NAMESPACE, "integrations.frameworks={batch/job}");
 * }</pre>
 *
 * <p>The configurations are named {@value #VALIDATING_NAME} and {@value #MUTATING_NAME} (the
 * chart's names for release {@value #RELEASE}), the names {@link WebhookSettings} patches the CA
 * bundle into by default. The chart and helm are found by {@link HelmChart#locate()}: run from a
 * checkout, with scripts/helm-binary.sh run once (the build and ./berth do).
 *
 * <p>Immutable: every accessor returns a fresh copy.
 */
public final class ChartWebhooks {
  /** The release name the configurations are rendered for; it makes their names. */
  public static final String RELEASE = "berth";

  /** The chart's documented namespace; its Jobs and pods are never intercepted. */
  public static final String NAMESPACE = "berth-system";

  public static final String VALIDATING_NAME = RELEASE + "-validating";
  public static final String MUTATING_NAME = RELEASE + "-mutating";

  private static final String TEMPLATE = "templates/webhooks.yaml";
  private static final String FIELD_MANAGER = "berth-chart-webhooks";

  private final String validatingYaml;
  private final String mutatingYaml;

  private ChartWebhooks(String validatingYaml, String mutatingYaml) {
    this.validatingYaml = validatingYaml;
    this.mutatingYaml = mutatingYaml;
  }

  /**
   * The chart's webhooks with its default values, release {@value #RELEASE} in {@value #NAMESPACE}.
   */
  public static ChartWebhooks render() {
    return render(NAMESPACE);
  }

  /**
   * The chart's webhooks for release {@value #RELEASE} in {@code namespace} (excluded from the Job
   * and pod webhooks, as the release namespace always is), with chart values as {@code helm --set}
   * takes them, e.g. {@code "webhooks.podTopologyGates.enabled=false"}.
   *
   * @throws IllegalArgumentException with helm's message when the chart's schema refuses a value
   * @throws IllegalStateException when no checkout or no helm binary is found
   */
  public static ChartWebhooks render(String namespace, String... values) {
    return render(HelmChart.locate(), namespace, values);
  }

  /** As {@link #render(String, String...)}, with the given checkout and helm. */
  public static ChartWebhooks render(HelmChart chart, String namespace, String... values) {
    List<String> args = new ArrayList<>(List.of("--show-only", TEMPLATE));
    for (String value : values) {
      args.add("--set");
      args.add(value);
    }
    return parse(chart.template(RELEASE, namespace, args));
  }

  /**
   * The webhook configurations in a {@code helm template} output: exactly one
   * ValidatingWebhookConfiguration and one MutatingWebhookConfiguration, other kinds ignored.
   */
  public static ChartWebhooks parse(String manifests) {
    String validating = null;
    String mutating = null;
    for (String doc : manifests.split("(?m)^---\\s*$")) {
      if (doc.lines().map(String::strip).allMatch(l -> l.isEmpty() || l.startsWith("#"))) {
        continue;
      }
      String kind = Serialization.unmarshal(doc, GenericKubernetesResource.class).getKind();
      if ("ValidatingWebhookConfiguration".equals(kind)) {
        validating = only(validating, doc, kind);
      } else if ("MutatingWebhookConfiguration".equals(kind)) {
        mutating = only(mutating, doc, kind);
      }
    }
    if (validating == null || mutating == null) {
      throw new IllegalArgumentException(
          "the chart rendered no "
              + (validating == null
                  ? "ValidatingWebhookConfiguration"
                  : "MutatingWebhookConfiguration"));
    }
    return new ChartWebhooks(validating, mutating);
  }

  private static String only(String seen, String doc, String kind) {
    if (seen != null) {
      throw new IllegalArgumentException("the chart rendered more than one " + kind);
    }
    return doc;
  }

  /** The ValidatingWebhookConfiguration (a copy). */
  public ValidatingWebhookConfiguration validating() {
    return Serialization.unmarshal(validatingYaml, ValidatingWebhookConfiguration.class);
  }

  /** The MutatingWebhookConfiguration (a copy). */
  public MutatingWebhookConfiguration mutating() {
    return Serialization.unmarshal(mutatingYaml, MutatingWebhookConfiguration.class);
  }

  /**
   * The same configurations with every webhook sent to {@code https://127.0.0.1:<port><path>}
   * instead of the chart's Service (same path); every other field as rendered.
   */
  public ChartWebhooks onLoopback(int port) {
    return pointedAt("https://127.0.0.1:" + port);
  }

  /**
   * The same configurations with every webhook sent to {@code <baseUrl><path>}, the path the chart
   * gives the Service.
   */
  public ChartWebhooks pointedAt(String baseUrl) {
    return map(
        c -> {
          String path = c.getService() != null ? c.getService().getPath() : pathOf(c.getUrl());
          return new WebhookClientConfigBuilder()
              .withUrl(baseUrl + path)
              .withCaBundle(c.getCaBundle())
              .build();
        });
  }

  /** The same configurations trusting the given PEM CA certificate(s) for every webhook. */
  public ChartWebhooks withCaBundle(String caPem) {
    String bundle = Base64.getEncoder().encodeToString(caPem.getBytes(StandardCharsets.UTF_8));
    return map(c -> new WebhookClientConfigBuilder(c).withCaBundle(bundle).build());
  }

  /**
   * Server-side applies both configurations (forcing conflicts: the chart's objects are the truth).
   * Webhooks of an earlier install by this class that the chart no longer renders are removed; a
   * caBundle patched in by another field manager stays.
   */
  public void install(KubernetesClient admin) {
    var admission = admin.admissionRegistration().v1();
    admission
        .validatingWebhookConfigurations()
        .resource(validating())
        .fieldManager(FIELD_MANAGER)
        .forceConflicts()
        .serverSideApply();
    admission
        .mutatingWebhookConfigurations()
        .resource(mutating())
        .fieldManager(FIELD_MANAGER)
        .forceConflicts()
        .serverSideApply();
  }

  private ChartWebhooks map(UnaryOperator<WebhookClientConfig> change) {
    ValidatingWebhookConfiguration v = validating();
    v.getWebhooks().forEach(w -> w.setClientConfig(change.apply(w.getClientConfig())));
    MutatingWebhookConfiguration m = mutating();
    m.getWebhooks().forEach(w -> w.setClientConfig(change.apply(w.getClientConfig())));
    return new ChartWebhooks(Serialization.asYaml(v), Serialization.asYaml(m));
  }

  /** The path of a URL this class wrote earlier: what follows scheme, host and port. */
  private static String pathOf(String url) {
    if (url == null) {
      throw new IllegalStateException("a webhook with neither service nor url");
    }
    int slash = url.indexOf('/', url.indexOf("://") + 3);
    return slash < 0 ? "" : url.substring(slash);
  }
}
