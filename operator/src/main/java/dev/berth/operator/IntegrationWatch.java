package dev.berth.operator;

import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Notices a CRD installed after the operator started, once the API server serves it (its {@code
 * Established} condition): before that a list of its kind is refused, and an informer started on it
 * would only retry. An informer on the one CRD rather than a bare watch, so that a watch the API
 * server ends (a timeout, a 410 Gone) is listed and opened again without help. Runs its callback
 * once.
 */
final class IntegrationWatch implements AutoCloseable {
  private final SharedIndexInformer<CustomResourceDefinition> informer;

  IntegrationWatch(KubernetesClient client, String crdName, Runnable onInstalled) {
    AtomicBoolean fired = new AtomicBoolean();
    informer =
        client
            .apiextensions()
            .v1()
            .customResourceDefinitions()
            .withName(crdName)
            .inform(
                new ResourceEventHandler<>() {
                  @Override
                  public void onAdd(CustomResourceDefinition crd) {
                    seen(crd);
                  }

                  @Override
                  public void onUpdate(
                      CustomResourceDefinition before, CustomResourceDefinition crd) {
                    seen(crd);
                  }

                  @Override
                  public void onDelete(CustomResourceDefinition crd, boolean unknownFinalState) {}

                  private void seen(CustomResourceDefinition crd) {
                    if (established(crd) && fired.compareAndSet(false, true)) {
                      onInstalled.run();
                    }
                  }
                },
                0);
  }

  /** The API server serves the CRD's kind. */
  static boolean established(CustomResourceDefinition crd) {
    return crd.getStatus() != null
        && crd.getStatus().getConditions() != null
        && crd.getStatus().getConditions().stream()
            .anyMatch(c -> "Established".equals(c.getType()) && "True".equals(c.getStatus()));
  }

  @Override
  public void close() {
    informer.close();
  }
}
