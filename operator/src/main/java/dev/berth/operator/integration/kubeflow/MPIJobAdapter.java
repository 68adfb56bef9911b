package dev.berth.operator.integration.kubeflow;

import dev.berth.webhook.integration.Framework;

/** A MPIJob: podSets {@code launcher} and {@code worker} ({@link KubeflowJobAdapter}). */
public final class MPIJobAdapter extends KubeflowJobAdapter<MPIJob> {
  public MPIJobAdapter() {
    super(Framework.MPIJOB, "mpijob-controller");
  }
}
