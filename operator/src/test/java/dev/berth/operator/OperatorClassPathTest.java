package dev.berth.operator;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/**
 * The operator's jar is the image's: its class path (the runtime and, here, the test one) must not
 * carry kube-api-test, which brings an embedded API server, JUnit and Mockito with it. Local mode
 * and the end-to-end suite take it from the local module.
 */
class OperatorClassPathTest {
  @Test
  void kubeApiTestIsNotOnTheOperatorsClassPath() {
    assertThatThrownBy(() -> Class.forName("io.fabric8.kubeapitest.KubeAPIServer"))
        .as(
            "kube-api-test on the operator's class path: a dependency of operator/pom.xml brings it")
        .isInstanceOf(ClassNotFoundException.class);
  }
}
