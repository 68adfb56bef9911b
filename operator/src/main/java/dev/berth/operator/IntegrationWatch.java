package dev.berth.operator;

import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Notices a CRD of an integration (JobSet) installed after the operator started. JOSDK registers
 * controllers only before start, so the operator switches the integration on by restarting: the
 * callback exits in a Pod (Kubernetes starts it again, now with the integration).
 */
final class IntegrationWatch implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(IntegrationWatch.class);

  private final Watch watch;

  IntegrationWatch(KubernetesClient client, String crdName, Runnable onInstalled) {
    AtomicBoolean fired = new AtomicBoolean();
    watch =
        client
            .apiextensions()
            .v1()
            .customResourceDefinitions()
            .withName(crdName)
            .watch(
                new Watcher<>() {
                  @Override
                  public void eventReceived(Action action, CustomResourceDefinition crd) {
                    if (action != Action.DELETED && fired.compareAndSet(false, true)) {
                      log.warn(
                          "{} was installed; restarting to switch its integration on", crdName);
                      onInstalled.run();
                    }
                  }

                  @Override
                  public void onClose(WatcherException cause) {}
                });
  }

  @Override
  public void close() {
    watch.close();
  }
}
