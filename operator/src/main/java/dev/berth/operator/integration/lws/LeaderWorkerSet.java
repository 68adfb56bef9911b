package dev.berth.operator.integration.lws;

import dev.berth.operator.integration.OpenObject;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.Version;

/**
 * A leaderworkerset.x-k8s.io/v1 LeaderWorkerSet, as the client registers it. The operator neither
 * reads nor writes one: its replica groups are pod groups, run by the pod integration (docs/
 * leaderworkerset.md); every field is kept as it came.
 */
@Group("leaderworkerset.x-k8s.io")
@Version("v1")
@Kind("LeaderWorkerSet")
@Plural("leaderworkersets")
public class LeaderWorkerSet extends CustomResource<LeaderWorkerSet.Spec, LeaderWorkerSet.Status>
    implements Namespaced {

  /** spec, kept whole. */
  public static class Spec extends OpenObject {}

  /** status, kept whole. */
  public static class Status extends OpenObject {}
}
