package dev.berth.webhook.tls;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhook;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfiguration;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingWebhook;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingWebhookConfiguration;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes the CA bundle into the named webhook configurations and APIServices (the aggregated
 * visibility API is served with the same certificate). Each write is a read-modify-update carrying
 * the resourceVersion it read, retried on conflict, so a concurrent edit (Helm, another replica) is
 * never overwritten blindly.
 */
public final class CaBundlePatcher implements Consumer<String> {
  private static final Logger LOG = LoggerFactory.getLogger(CaBundlePatcher.class);
  private static final int ATTEMPTS = 5;

  private final KubernetesClient client;
  private final List<String> validatingConfigurations;
  private final List<String> mutatingConfigurations;
  private final List<String> apiServices;

  /** The chart's APIService for the visibility API, served with the webhook's certificate. */
  public static final String VISIBILITY_API_SERVICE = "v1beta1.visibility.berth.dev";

  public CaBundlePatcher(
      KubernetesClient client,
      List<String> validatingConfigurations,
      List<String> mutatingConfigurations) {
    this(client, validatingConfigurations, mutatingConfigurations, List.of());
  }

  /** As above, and the caBundle of these APIServices, where they exist. */
  public CaBundlePatcher(
      KubernetesClient client,
      List<String> validatingConfigurations,
      List<String> mutatingConfigurations,
      List<String> apiServices) {
    this.client = client;
    this.validatingConfigurations = List.copyOf(validatingConfigurations);
    this.mutatingConfigurations = List.copyOf(mutatingConfigurations);
    this.apiServices = List.copyOf(apiServices);
  }

  @Override
  public void accept(String caBundlePem) {
    String bundle =
        Base64.getEncoder().encodeToString(caBundlePem.getBytes(StandardCharsets.UTF_8));
    validatingConfigurations.forEach(name -> retry(() -> patchValidating(name, bundle), name));
    mutatingConfigurations.forEach(name -> retry(() -> patchMutating(name, bundle), name));
    apiServices.forEach(name -> retry(() -> patchApiService(name, bundle), name));
  }

  /** An APIService the chart may leave out (visibility.apiService=false): absent is fine. */
  private void patchApiService(String name, String bundle) {
    var ops = client.genericKubernetesResources("apiregistration.k8s.io/v1", "APIService");
    GenericKubernetesResource service = ops.withName(name).get();
    if (service == null) {
      LOG.debug("APIService {} not found; caBundle not written", name);
      return;
    }
    @SuppressWarnings("unchecked")
    Map<String, Object> spec = (Map<String, Object>) service.getAdditionalProperties().get("spec");
    if (spec != null && !Objects.equals(bundle, spec.get("caBundle"))) {
      spec.put("caBundle", bundle);
      ops.resource(service).update(); // carries the resourceVersion read above
    }
  }

  private void patchValidating(String name, String bundle) {
    var ops = client.admissionRegistration().v1().validatingWebhookConfigurations();
    ValidatingWebhookConfiguration cfg = ops.withName(name).get();
    if (cfg == null) {
      LOG.warn("ValidatingWebhookConfiguration {} not found; caBundle not written", name);
      return;
    }
    boolean changed = false;
    for (ValidatingWebhook w : cfg.getWebhooks()) {
      if (!Objects.equals(bundle, w.getClientConfig().getCaBundle())) {
        w.getClientConfig().setCaBundle(bundle);
        changed = true;
      }
    }
    if (changed) {
      ops.resource(cfg).update(); // carries the resourceVersion read above
    }
  }

  private void patchMutating(String name, String bundle) {
    var ops = client.admissionRegistration().v1().mutatingWebhookConfigurations();
    MutatingWebhookConfiguration cfg = ops.withName(name).get();
    if (cfg == null) {
      LOG.warn("MutatingWebhookConfiguration {} not found; caBundle not written", name);
      return;
    }
    boolean changed = false;
    for (MutatingWebhook w : cfg.getWebhooks()) {
      if (!Objects.equals(bundle, w.getClientConfig().getCaBundle())) {
        w.getClientConfig().setCaBundle(bundle);
        changed = true;
      }
    }
    if (changed) {
      ops.resource(cfg).update();
    }
  }

  private static void retry(Runnable write, String name) {
    for (int attempt = 1; ; attempt++) {
      try {
        write.run();
        return;
      } catch (KubernetesClientException e) {
        if (e.getCode() != 409 || attempt == ATTEMPTS) {
          throw e;
        }
        LOG.debug("conflict writing caBundle of {}, retrying ({}/{})", name, attempt, ATTEMPTS);
      }
    }
  }
}
