package dev.berth.e2e;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.List;

/**
 * The command line the local-mode tests start local mode with: the repository's samples, pods that
 * run 5 s, the kubeconfigs in {@code work}, and free ports (the webhook's a real one, since the API
 * server calls it), so that a test never meets another process's 8080, 8443 or 9443.
 */
final class LocalModeOptions {
  private LocalModeOptions() {}

  static List<String> of(Path work) {
    return List.of(
        "--samples",
        Path.of(System.getProperty("berth.repo"), "samples").toString(),
        "--run-seconds",
        "5",
        "--kubeconfig-out",
        work.resolve("kubeconfig").toString(),
        "--metrics-port",
        "0",
        "--https-port",
        "0",
        "--webhook-port",
        Integer.toString(freePort()));
  }

  private static int freePort() {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
