package dev.berth.e2e.faults;

import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A second kube-apiserver on the etcd of a running one, as in a control plane with two API server
 * replicas: same binary, flags, certificates and etcd, its own port. The operators reach the
 * cluster only through this one (behind the fault proxy), so {@link #restart()} is a kube-apiserver
 * restart as they see it: SIGKILL, then a new process on the same port with the same certificates;
 * the controllers, KWOK and the test's watcher stay on the first replica and see every event.
 */
final class ApiServerReplica implements AutoCloseable {
  private static final Pattern SERVER = Pattern.compile("server: https://127\\.0\\.0\\.1:(\\d+)");

  private final List<String> command;
  private final int port;
  private final Path log;
  private final String kubeconfig;
  private Process process;
  private int restarts;

  private ApiServerReplica(List<String> command, int port, Path log, String kubeconfig) {
    this.command = command;
    this.port = port;
    this.log = log;
    this.kubeconfig = kubeconfig;
    Runtime.getRuntime().addShutdownHook(new Thread(this::close, "kube-apiserver-replica-stop"));
  }

  /** Starts a replica of the kube-apiserver that serves {@code kubeconfig}, a child of this JVM. */
  static ApiServerReplica of(String kubeconfig, Path logDir) throws IOException {
    int first = port(kubeconfig);
    ProcessHandle original =
        ProcessHandle.current()
            .descendants()
            .filter(p -> p.info().command().orElse("").endsWith("/kube-apiserver"))
            .filter(
                p ->
                    arguments(p).contains(Integer.toString(first))
                        || arguments(p).contains("--secure-port=" + first))
            .findFirst()
            .orElseThrow(
                () ->
                    new IllegalStateException(
                        "no kube-apiserver child process serving port " + first));
    int port;
    try (ServerSocket free = new ServerSocket(0)) {
      port = free.getLocalPort();
    }
    List<String> command = new ArrayList<>();
    command.add(original.info().command().orElseThrow());
    List<String> args = arguments(original);
    for (int i = 0; i < args.size(); i++) {
      String arg = args.get(i);
      if (arg.equals("--secure-port")) {
        command.add(arg);
        command.add(Integer.toString(port));
        i++;
      } else if (arg.startsWith("--secure-port=")) {
        command.add("--secure-port=" + port);
      } else {
        command.add(arg);
      }
    }
    ApiServerReplica replica =
        new ApiServerReplica(
            List.copyOf(command),
            port,
            logDir.resolve("kube-apiserver-replica.log"),
            kubeconfig.replace("127.0.0.1:" + first, "127.0.0.1:" + port));
    replica.launch();
    return replica;
  }

  private static List<String> arguments(ProcessHandle process) {
    return List.of(process.info().arguments().orElse(new String[0]));
  }

  static int port(String kubeconfig) {
    Matcher m = SERVER.matcher(kubeconfig);
    if (!m.find()) {
      throw new IllegalArgumentException("kubeconfig names no https://127.0.0.1 server");
    }
    return Integer.parseInt(m.group(1));
  }

  int port() {
    return port;
  }

  /** Its admin kubeconfig: the first replica's, on this replica's port. */
  String kubeconfig() {
    return kubeconfig;
  }

  int restarts() {
    return restarts;
  }

  /** SIGKILL and a new process on the same port, etcd and certificates; returns once ready. */
  synchronized void restart() throws IOException, InterruptedException {
    process.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
    launch();
    restarts++;
  }

  private void launch() throws IOException {
    process = spawn();
    try (KubernetesClient client =
        new KubernetesClientBuilder().withConfig(Config.fromKubeconfig(kubeconfig)).build()) {
      // The port may still be held by the killed process's sockets for a moment; a new process
      // that cannot bind exits, and is started again.
      await()
          .atMost(Duration.ofSeconds(90))
          .pollInterval(Duration.ofMillis(500))
          .until(
              () -> {
                if (!process.isAlive()) {
                  process = spawn();
                  return false;
                }
                try {
                  return "ok".equals(client.raw("/readyz"));
                } catch (RuntimeException notYet) {
                  return false;
                }
              });
    }
  }

  private Process spawn() throws IOException {
    return new ProcessBuilder(command)
        .redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
        .start();
  }

  @Override
  public synchronized void close() {
    ChildProcesses.stop(process, Duration.ofSeconds(15));
  }
}
