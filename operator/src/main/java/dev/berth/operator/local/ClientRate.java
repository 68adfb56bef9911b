package dev.berth.operator.local;

/**
 * The API client rate limit of kube-controller-manager and kube-scheduler ({@code --kube-api-qps}
 * and {@code --kube-api-burst}, the scheduler's {@code clientConnection.qps} and {@code burst}).
 * Their defaults (20/30 and 50/100) suit the handful of Jobs of a test; a cluster of thousands of
 * Jobs runs them higher, else the Job controller's pod creates wait on its own client.
 */
public record ClientRate(int qps, int burst) {
  public ClientRate {
    if (qps <= 0 || burst < qps) {
      throw new IllegalArgumentException(
          "client rate: qps " + qps + " must be positive and burst " + burst + " at least qps");
    }
  }
}
