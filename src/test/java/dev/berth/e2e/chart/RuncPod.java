package dev.berth.e2e.chart;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * One container of a Pod, started from the OCI image the build made (target/image/oci) with runc,
 * the real OCI runtime that containerd drives on a node. This class is the stand-in for the
 * kubelet, which cannot run here: it turns the parts of a Pod spec that matter to the operator
 * (env, runAsUser/runAsGroup, readOnlyRootFilesystem, dropped capabilities, no privilege
 * escalation, memory and CPU limits, volumes, /etc/hosts) into the runtime configuration the
 * kubelet's CRI runtime would write, on top of the one umoci derives from the image's config. The
 * Pod uses the host's network (hostNetwork: true), so that the test API server on 127.0.0.1 and the
 * webhook port are reachable without a network of its own.
 */
final class RuncPod implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** A bind mount of a host directory or file, as a volume of the Pod. */
  record Volume(String destination, Path source, boolean readOnly) {}

  /** What the kubelet would take from the Pod spec; {@code command} empty = the image's. */
  record Spec(
      String name,
      Map<String, String> env,
      int uid,
      int gid,
      long memoryLimitBytes,
      long cpuMillis,
      List<Volume> volumes,
      Map<String, Integer> tmpfsMiB,
      List<String> command) {}

  private final String id;
  private final Path work;
  private final Path runRoot;
  private final Path log;
  private final Process process;

  private RuncPod(String id, Path work, Path runRoot, Path log, Process process) {
    this.id = id;
    this.work = work;
    this.runRoot = runRoot;
    this.log = log;
    this.process = process;
  }

  /** Unpacks {@code layout:tag} into a bundle and runs it in the foreground of a child process. */
  static RuncPod start(Path layout, String tag, Spec spec) {
    try {
      Path work = Files.createTempDirectory("berth-pod-");
      Path bundle = work.resolve("bundle");
      run(List.of("umoci", "unpack", "--image", layout + ":" + tag, bundle.toString()));
      Path config = bundle.resolve("config.json");
      ObjectNode root = (ObjectNode) JSON.readTree(config.toFile());
      configure(root, spec, work);
      JSON.writerWithDefaultPrettyPrinter().writeValue(config.toFile(), root);
      Path runRoot = work.resolve("runc");
      Path log = work.resolve("container.log");
      String id = spec.name() + "-" + ProcessHandle.current().pid();
      Process process =
          new ProcessBuilder(
                  "runc", "--root", runRoot.toString(), "run", "--bundle", bundle.toString(), id)
              .redirectErrorStream(true)
              .redirectOutput(log.toFile())
              .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()))
              .start();
      return new RuncPod(id, work, runRoot, log, process);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void configure(ObjectNode root, Spec spec, Path work) throws IOException {
    ObjectNode process = (ObjectNode) root.get("process");
    process.put("terminal", false);
    if (!spec.command().isEmpty()) {
      ArrayNode args = process.putArray("args");
      spec.command().forEach(args::add);
    }
    // The image's environment, then the container's: a Pod's env wins over the image's ENV.
    Map<String, String> env = new LinkedHashMap<>();
    for (JsonNode e : process.get("env")) {
      String[] kv = e.asText().split("=", 2);
      env.put(kv[0], kv.length > 1 ? kv[1] : "");
    }
    env.remove("TERM"); // umoci's default for a terminal; a Pod has none
    env.putAll(spec.env());
    ArrayNode envArray = process.putArray("env");
    env.forEach((k, v) -> envArray.add(k + "=" + v));
    ObjectNode user = process.putObject("user");
    user.put("uid", spec.uid());
    user.put("gid", spec.gid());
    user.putArray("additionalGids").add(spec.gid()); // fsGroup
    // capabilities: drop: [ALL]; allowPrivilegeEscalation: false
    ObjectNode caps = process.putObject("capabilities");
    for (String set : List.of("bounding", "effective", "inheritable", "permitted", "ambient")) {
      caps.putArray(set);
    }
    process.put("noNewPrivileges", true);
    ((ObjectNode) root.get("root")).put("readonly", true);
    root.put("hostname", spec.name());

    ObjectNode linux = (ObjectNode) root.get("linux");
    ArrayNode namespaces = linux.putArray("namespaces");
    for (String ns : List.of("pid", "ipc", "uts", "mount")) {
      namespaces.addObject().put("type", ns); // no "network": hostNetwork
    }
    ObjectNode resources = linux.putObject("resources");
    resources.putObject("memory").put("limit", spec.memoryLimitBytes());
    resources.putObject("cpu").put("period", 100_000).put("quota", spec.cpuMillis() * 100);

    ArrayNode mounts = (ArrayNode) root.get("mounts");
    spec.tmpfsMiB()
        .forEach(
            (dest, mib) -> {
              ObjectNode m = mounts.addObject();
              m.put("destination", dest).put("type", "tmpfs").put("source", "tmpfs");
              m.putArray("options")
                  .add("nosuid")
                  .add("nodev")
                  .add("mode=1777")
                  .add("size=" + mib + "m");
            });
    // The kubelet writes the Pod's /etc/hosts; the image has none.
    Path hosts = work.resolve("etc-hosts");
    Files.writeString(hosts, "127.0.0.1\tlocalhost\n127.0.0.1\t" + spec.name() + "\n");
    List<Volume> volumes = new ArrayList<>(spec.volumes());
    volumes.add(new Volume("/etc/hosts", hosts, true));
    for (Volume v : volumes) {
      ObjectNode m = mounts.addObject();
      m.put("destination", v.destination()).put("type", "bind");
      m.put("source", v.source().toString());
      ArrayNode options = m.putArray("options").add("rbind").add("nosuid").add("nodev");
      options.add(v.readOnly() ? "ro" : "rw");
    }
  }

  /** The container's init process as the host sees it, from {@code runc state}. */
  long hostPid() {
    String state = run(List.of("runc", "--root", runRoot.toString(), "state", id));
    try {
      return JSON.readTree(state).get("pid").asLong();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The container's root filesystem, as umoci unpacked it from the image. */
  Path rootfs() {
    return work.resolve("bundle").resolve("rootfs");
  }

  boolean isRunning() {
    return process.isAlive();
  }

  /** Sends a signal to the container's process, as the kubelet does through the runtime. */
  void kill(String signal) {
    run(List.of("runc", "--root", runRoot.toString(), "kill", id, signal));
  }

  /** Waits for the container to end; its exit code, or empty if it still runs. */
  java.util.OptionalInt awaitExit(Duration timeout) {
    try {
      return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)
          ? java.util.OptionalInt.of(process.exitValue())
          : java.util.OptionalInt.empty();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** "runc run" exit status N, or "still running". */
  String exitStatus() {
    return process.isAlive() ? "still running" : "runc run exit status " + process.exitValue();
  }

  /** What the container printed so far. */
  String log() {
    try {
      return Files.readString(log, StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "(no log: " + e.getMessage() + ")";
    }
  }

  @Override
  public void close() {
    if (process.isAlive()) {
      runQuietly(List.of("runc", "--root", runRoot.toString(), "kill", id, "KILL"));
      awaitExit(Duration.ofSeconds(10));
    }
    runQuietly(List.of("runc", "--root", runRoot.toString(), "delete", "--force", id));
    try (Stream<Path> files = Files.walk(work)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      // a leftover temporary directory is harmless
    }
  }

  static String run(List<String> command) {
    try {
      Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!p.waitFor(120, TimeUnit.SECONDS) || p.exitValue() != 0) {
        throw new IllegalStateException(String.join(" ", command) + " failed: " + out);
      }
      return out;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private static void runQuietly(List<String> command) {
    try {
      run(command);
    } catch (RuntimeException e) {
      // already gone
    }
  }
}
