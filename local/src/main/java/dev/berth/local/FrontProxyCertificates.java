package dev.berth.local;

import dev.berth.webhook.tls.CertificateAuthority;
import dev.berth.webhook.tls.KeyMaterial;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;

/**
 * The aggregation layer's certificates for a kube-apiserver on this machine, made fresh for each
 * start: a front-proxy CA and the client certificate the API server presents (CN {@value
 * #PROXY_NAME}) when it proxies a request to an aggregated API such as Berth's visibility API. The
 * API server publishes the CA, the allowed name and the header names in {@code
 * kube-system/extension-apiserver-authentication}, where the operator reads them, as on a kubeadm
 * cluster.
 */
final class FrontProxyCertificates {
  static final String PROXY_NAME = "front-proxy-client";

  private final Path directory;

  private FrontProxyCertificates(Path directory) {
    this.directory = directory;
  }

  static FrontProxyCertificates create() {
    try {
      Path dir = Files.createTempDirectory("berth-front-proxy");
      CertificateAuthority ca =
          CertificateAuthority.generate("berth-front-proxy-ca", Duration.ofDays(7));
      KeyMaterial client = ca.issueClient(PROXY_NAME, Duration.ofDays(7));
      Files.writeString(dir.resolve("front-proxy-ca.crt"), ca.certificatePem());
      Files.writeString(
          dir.resolve("front-proxy-client.crt"), CertificateAuthority.Pem.encode(client.leaf()));
      Files.writeString(
          dir.resolve("front-proxy-client.key"), CertificateAuthority.Pem.encodeKey(client.key()));
      return new FrontProxyCertificates(dir);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the front-proxy certificates", e);
    }
  }

  /**
   * kube-apiserver's aggregation-layer flags. Aggregator routing: the API server calls an
   * APIService's endpoints (EndpointSlices) rather than its Service's cluster IP, which nothing
   * routes on a machine without kube-proxy.
   */
  List<String> apiServerFlags() {
    return List.of(
        "--requestheader-client-ca-file=" + directory.resolve("front-proxy-ca.crt"),
        "--requestheader-allowed-names=" + PROXY_NAME,
        "--requestheader-username-headers=X-Remote-User",
        "--requestheader-uid-headers=X-Remote-Uid",
        "--requestheader-group-headers=X-Remote-Group",
        "--requestheader-extra-headers-prefix=X-Remote-Extra-",
        "--proxy-client-cert-file=" + directory.resolve("front-proxy-client.crt"),
        "--proxy-client-key-file=" + directory.resolve("front-proxy-client.key"),
        "--enable-aggregator-routing=true");
  }

  void delete() {
    try (Stream<Path> files = Files.list(directory)) {
      for (Path f : files.toList()) {
        Files.deleteIfExists(f);
      }
      Files.deleteIfExists(directory);
    } catch (IOException e) {
      // A temporary directory left behind is harmless.
    }
  }
}
