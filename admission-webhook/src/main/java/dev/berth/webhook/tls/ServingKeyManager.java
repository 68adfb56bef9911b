package dev.berth.webhook.tls;

import java.net.Socket;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedKeyManager;

/**
 * A key manager whose certificate can be replaced while the server runs: new handshakes get the new
 * certificate, connections already open keep theirs. Each generation has its own alias and the
 * previous one stays resolvable, so a handshake that chose an alias just before a swap still finds
 * a matching key and chain.
 */
public final class ServingKeyManager extends X509ExtendedKeyManager {
  private record Generation(String alias, KeyMaterial material) {}

  private final AtomicLong counter = new AtomicLong();
  private volatile Generation current;
  private volatile Generation previous;

  public ServingKeyManager(KeyMaterial initial) {
    update(initial);
  }

  public synchronized void update(KeyMaterial material) {
    previous = current;
    current = new Generation("berth-serving-" + counter.incrementAndGet(), material);
  }

  public KeyMaterial current() {
    return current.material();
  }

  private Generation find(String alias) {
    Generation c = current;
    if (c.alias().equals(alias)) {
      return c;
    }
    Generation p = previous;
    return p != null && p.alias().equals(alias) ? p : null;
  }

  private String aliasFor(String keyType) {
    Generation c = current;
    String algorithm = c.material().key().getAlgorithm();
    boolean matches =
        keyType == null
            || keyType.equals(algorithm)
            || (algorithm.equals("EC") && keyType.startsWith("EC"))
            || (algorithm.equals("RSA") && keyType.startsWith("RSA"));
    return matches ? c.alias() : null;
  }

  @Override
  public String chooseServerAlias(String keyType, Principal[] issuers, Socket socket) {
    return aliasFor(keyType);
  }

  @Override
  public String chooseEngineServerAlias(String keyType, Principal[] issuers, SSLEngine engine) {
    return aliasFor(keyType);
  }

  @Override
  public String[] getServerAliases(String keyType, Principal[] issuers) {
    String alias = aliasFor(keyType);
    return alias == null ? null : new String[] {alias};
  }

  @Override
  public X509Certificate[] getCertificateChain(String alias) {
    Generation g = find(alias);
    return g == null ? null : g.material().chain().clone();
  }

  @Override
  public PrivateKey getPrivateKey(String alias) {
    Generation g = find(alias);
    return g == null ? null : g.material().key();
  }

  @Override
  public String[] getClientAliases(String keyType, Principal[] issuers) {
    return null;
  }

  @Override
  public String chooseClientAlias(String[] keyType, Principal[] issuers, Socket socket) {
    return null;
  }
}
