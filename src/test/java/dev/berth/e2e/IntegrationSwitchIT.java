package dev.berth.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.local.EmbeddedApiServer;
import dev.berth.operator.BerthOperator;
import dev.berth.operator.OperatorConfig;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The JobSet integration switches on when its CRD is installed after the operator started. */
class IntegrationSwitchIT {

  @Test
  void installingTheJobSetCrdLaterAsksForARestart() throws Exception {
    try (EmbeddedApiServer server = EmbeddedApiServer.start()) {
      server.install(EmbeddedApiServer.berthCrds());
      Namespaces.ensure(server.client(), "berth-system");
      CountDownLatch restartRequested = new CountDownLatch(1);
      try (KubernetesClient client =
          new KubernetesClientBuilder()
              .withConfig(Config.fromKubeconfig(server.kubeconfig()))
              .build()) {
        BerthOperator operator =
            BerthOperator.start(
                client,
                new OperatorConfig(
                    "berth-system",
                    false,
                    "berth-leader",
                    0,
                    false,
                    0,
                    "berth-operator",
                    false,
                    false),
                restartRequested::countDown);
        try {
          assertThat(restartRequested.await(2, TimeUnit.SECONDS)).as("no JobSet CRD yet").isFalse();
          server.install(java.util.List.of(EmbeddedApiServer.jobSetCrd()));
          assertThat(restartRequested.await(30, TimeUnit.SECONDS)).isTrue();
        } finally {
          operator.close();
        }
      }
    }
  }
}
