package dev.berth.webhook;

import dev.berth.webhook.authz.CachedGrants;
import dev.berth.webhook.authz.SubjectAccessReviewGrants;
import dev.berth.webhook.dra.DeviceClassMappings;
import dev.berth.webhook.mutation.InformerLocalQueueLookup;
import dev.berth.webhook.server.BerthWebhooks;
import dev.berth.webhook.server.WebhookServer;
import dev.berth.webhook.server.WebhookWarmup;
import dev.berth.webhook.tls.CaBundlePatcher;
import dev.berth.webhook.tls.CertificateRotator;
import dev.berth.webhook.tls.CertificateSource;
import dev.berth.webhook.tls.MountedCertificates;
import dev.berth.webhook.tls.SecretCaStore;
import dev.berth.webhook.tls.SelfSignedCertificates;
import dev.berth.webhook.tls.ServingKeyManager;
import dev.berth.webhook.validation.LabelledOnly;
import dev.berth.webhook.validation.QueueScope;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.time.Clock;
import java.util.List;

/**
 * The webhook with everything it needs: certificates (self-signed or mounted), rotation, the
 * LocalQueue cache and the HTTPS server. The operator starts one in its own process; {@link
 * WebhookMain} starts one alone.
 */
public final class WebhookRuntime implements AutoCloseable {
  private final WebhookSettings settings;
  private final KubernetesClient client;
  private InformerLocalQueueLookup localQueues;
  private CertificateRotator rotator;
  private WebhookServer server;
  private ServingKeyManager keys;
  private DeviceClassMappings deviceClasses = DeviceClassMappings.NONE;

  public WebhookRuntime(WebhookSettings settings, KubernetesClient client) {
    this.settings = settings;
    this.client = client;
  }

  /** The operator's DeviceClass mappings, for the pod rule (before {@link #start()}). */
  public synchronized WebhookRuntime deviceClasses(DeviceClassMappings mappings) {
    this.deviceClasses = mappings;
    return this;
  }

  /** Starts serving; returns the bound port. */
  public synchronized int start() throws IOException {
    CertificateSource certificates = certificates();
    keys = new ServingKeyManager(certificates.current());
    rotator = new CertificateRotator(certificates, keys, Clock.systemUTC());
    rotator.start(settings.rotationCheckPeriod());
    localQueues = new InformerLocalQueueLookup(client, deviceClasses);
    QueueScope scope =
        settings.manageJobsWithoutQueueName() ? localQueues : new LabelledOnly(localQueues);
    server =
        new WebhookServer(
            BerthWebhooks.routes(
                settings.operatorIdentity(),
                scope,
                new CachedGrants(new SubjectAccessReviewGrants(client), CachedGrants.DEFAULT_TTL)),
            keys,
            settings.threads());
    int port = server.start(settings.port());
    // Before the process reports ready: the API server's first calls find the path warm.
    WebhookWarmup.warm(port);
    return port;
  }

  /**
   * The serving certificate, kept current by the rotator; null before {@link #start()}. The
   * operator serves its HTTPS port (visibility API, dashboard) with it, for the same Service.
   */
  public synchronized ServingKeyManager keys() {
    return keys;
  }

  private CertificateSource certificates() {
    if (settings.certDirectory() != null) {
      return new MountedCertificates(settings.certDirectory());
    }
    return new SelfSignedCertificates(
        new SecretCaStore(client, settings.namespace(), settings.caSecretName()),
        settings.serviceDnsNames(),
        settings.ipAddresses(),
        settings.caValidity(),
        settings.servingValidity(),
        new CaBundlePatcher(
            client,
            settings.validatingConfigurations(),
            settings.mutatingConfigurations(),
            List.of(CaBundlePatcher.VISIBILITY_API_SERVICE)));
  }

  @Override
  public synchronized void close() {
    if (server != null) {
      server.stop();
    }
    if (rotator != null) {
      rotator.close();
    }
    if (localQueues != null) {
      localQueues.close();
    }
  }
}
