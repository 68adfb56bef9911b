package dev.berth.webhook.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.webhook.validation.RequestUser;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The requesting user is read whole: grants may be decided on groups, uid and extra. */
class AdmissionReviewUserInfoTest {
  private static AdmissionCall parse(String userInfo) throws MalformedReviewException {
    return AdmissionReviewCodec.parse(
        """
        {"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{
          "uid":"u-1","kind":{"group":"berth.dev","version":"v1beta1","kind":"Workload"},
          "subResource":"status","operation":"UPDATE","namespace":"team","name":"x",
          "userInfo":%s}}
        """
            .formatted(userInfo)
            .getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void usernameUidGroupsAndExtraAreRead() throws Exception {
    AdmissionCall call =
        parse(
            """
            {"username":"system:serviceaccount:cap:provisioner","uid":"42",
             "groups":["system:serviceaccounts","system:authenticated"],
             "extra":{"authentication.kubernetes.io/pod-name":["provisioner-0"]}}
            """);
    assertThat(call.user())
        .isEqualTo(
            new RequestUser(
                "system:serviceaccount:cap:provisioner",
                "42",
                List.of("system:serviceaccounts", "system:authenticated"),
                Map.of("authentication.kubernetes.io/pod-name", List.of("provisioner-0"))));
    assertThat(call.username()).isEqualTo("system:serviceaccount:cap:provisioner");
  }

  @Test
  void aMissingOrMisshapenUserInfoIsAnAnonymousNobody() throws Exception {
    assertThat(parse("{}").user()).isEqualTo(RequestUser.named(null));
    assertThat(parse("{\"username\":\"a\",\"groups\":\"g\",\"extra\":[1]}").user())
        .isEqualTo(RequestUser.named("a"));
  }
}
