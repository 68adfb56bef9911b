package dev.berth.webhook.tls;

import java.io.IOException;
import java.io.StringReader;
import java.io.StringWriter;
import java.math.BigInteger;
import java.net.InetAddress;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.operator.ContentSigner;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * A small CA for the webhook's serving certificates: the API server trusts it through the caBundle
 * of the webhook configurations. ECDSA P-256 keys: small, fast, accepted by Go's TLS.
 */
public final class CertificateAuthority {
  /** Certificates start a little in the past, so a skewed API-server clock still accepts them. */
  private static final Duration BACKDATE = Duration.ofMinutes(5);

  private static final SecureRandom RANDOM = new SecureRandom();

  private final PrivateKey key;
  private final X509Certificate certificate;

  private CertificateAuthority(PrivateKey key, X509Certificate certificate) {
    this.key = key;
    this.certificate = certificate;
  }

  public static CertificateAuthority generate(String commonName, Duration validity) {
    try {
      KeyPair pair = newKeyPair();
      X500Name subject = new X500Name("CN=" + commonName);
      Instant now = Instant.now();
      JcaX509ExtensionUtils ext = new JcaX509ExtensionUtils();
      JcaX509v3CertificateBuilder builder =
          new JcaX509v3CertificateBuilder(
              subject,
              serial(),
              Date.from(now.minus(BACKDATE)),
              Date.from(now.plus(validity)),
              subject,
              pair.getPublic());
      builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(0));
      builder.addExtension(
          Extension.keyUsage,
          true,
          new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign | KeyUsage.digitalSignature));
      builder.addExtension(
          Extension.subjectKeyIdentifier, false, ext.createSubjectKeyIdentifier(pair.getPublic()));
      return new CertificateAuthority(pair.getPrivate(), sign(builder, pair.getPrivate()));
    } catch (GeneralSecurityException | IOException | OperatorCreationException e) {
      throw new IllegalStateException("cannot generate the webhook CA", e);
    }
  }

  /** A CA stored earlier (e.g. in a Secret shared by the replicas). */
  public static CertificateAuthority fromPem(String certificatePem, String keyPem) {
    X509Certificate[] chain = Pem.certificates(certificatePem);
    return new CertificateAuthority(Pem.privateKey(keyPem), chain[0]);
  }

  /** A serving certificate for the given DNS names and IP addresses, signed by this CA. */
  public KeyMaterial issue(List<String> dnsNames, List<String> ipAddresses, Duration validity) {
    String cn = dnsNames.isEmpty() ? ipAddresses.get(0) : dnsNames.get(0);
    return issue(cn, dnsNames, ipAddresses, KeyPurposeId.id_kp_serverAuth, validity);
  }

  /**
   * A client certificate for {@code commonName}, signed by this CA: what a caller presents when the
   * server asks for one (e.g. the API server's front-proxy client certificate, in tests).
   */
  public KeyMaterial issueClient(String commonName, Duration validity) {
    return issue(commonName, List.of(), List.of(), KeyPurposeId.id_kp_clientAuth, validity);
  }

  private KeyMaterial issue(
      String cn,
      List<String> dnsNames,
      List<String> ipAddresses,
      KeyPurposeId purpose,
      Duration validity) {
    try {
      KeyPair pair = newKeyPair();
      Instant now = Instant.now();
      Instant notAfter = now.plus(validity);
      if (notAfter.isAfter(certificate.getNotAfter().toInstant())) {
        notAfter = certificate.getNotAfter().toInstant(); // never outlive the issuer
      }
      JcaX509ExtensionUtils ext = new JcaX509ExtensionUtils();
      JcaX509v3CertificateBuilder builder =
          new JcaX509v3CertificateBuilder(
              certificate,
              serial(),
              Date.from(now.minus(BACKDATE)),
              Date.from(notAfter),
              new X500Name("CN=" + cn),
              pair.getPublic());
      builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(false));
      builder.addExtension(
          Extension.keyUsage,
          true,
          new KeyUsage(KeyUsage.digitalSignature | KeyUsage.keyEncipherment));
      builder.addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(purpose));
      if (!dnsNames.isEmpty() || !ipAddresses.isEmpty()) {
        builder.addExtension(Extension.subjectAlternativeName, false, sans(dnsNames, ipAddresses));
      }
      builder.addExtension(
          Extension.authorityKeyIdentifier, false, ext.createAuthorityKeyIdentifier(certificate));
      builder.addExtension(
          Extension.subjectKeyIdentifier, false, ext.createSubjectKeyIdentifier(pair.getPublic()));
      X509Certificate leaf = sign(builder, key);
      return new KeyMaterial(pair.getPrivate(), new X509Certificate[] {leaf, certificate});
    } catch (GeneralSecurityException | IOException | OperatorCreationException e) {
      throw new IllegalStateException("cannot issue a certificate for " + cn, e);
    }
  }

  public X509Certificate certificate() {
    return certificate;
  }

  public String certificatePem() {
    return Pem.encode(certificate);
  }

  /**
   * A TLS client context that trusts this CA and nothing else, as a caBundle makes the API server
   * do; for clients that call the webhook directly (tests, the load benchmark).
   */
  public SSLContext trustingClientContext() {
    try {
      KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
      store.load(null, null);
      store.setCertificateEntry("ca", certificate);
      TrustManagerFactory trust =
          TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      trust.init(store);
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(null, trust.getTrustManagers(), null);
      return context;
    } catch (GeneralSecurityException | IOException e) {
      throw new IllegalStateException("cannot build a TLS context trusting " + certificate, e);
    }
  }

  public String privateKeyPem() {
    return Pem.encodeKey(key);
  }

  private static GeneralNames sans(List<String> dnsNames, List<String> ips) throws IOException {
    List<GeneralName> names = new ArrayList<>();
    dnsNames.forEach(d -> names.add(new GeneralName(GeneralName.dNSName, d)));
    for (String ip : ips) {
      // Literal addresses only: getByName on a literal does no lookup.
      names.add(
          new GeneralName(
              GeneralName.iPAddress,
              new org.bouncycastle.asn1.DEROctetString(InetAddress.getByName(ip).getAddress())));
    }
    return new GeneralNames(names.toArray(GeneralName[]::new));
  }

  private static KeyPair newKeyPair() throws GeneralSecurityException {
    KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
    generator.initialize(new ECGenParameterSpec("secp256r1"), RANDOM);
    return generator.generateKeyPair();
  }

  private static BigInteger serial() {
    return new BigInteger(127, RANDOM);
  }

  private static X509Certificate sign(JcaX509v3CertificateBuilder builder, PrivateKey signer)
      throws OperatorCreationException, GeneralSecurityException {
    ContentSigner contentSigner = new JcaContentSignerBuilder("SHA256withECDSA").build(signer);
    X509CertificateHolder holder = builder.build(contentSigner);
    return new JcaX509CertificateConverter().getCertificate(holder);
  }

  /** PEM reading and writing, for Secrets, mounted files and the caBundle. */
  public static final class Pem {
    private Pem() {}

    public static String encode(Object object) {
      StringWriter out = new StringWriter();
      try (JcaPEMWriter writer = new JcaPEMWriter(out)) {
        writer.writeObject(object);
      } catch (IOException e) {
        throw new IllegalStateException(e);
      }
      return out.toString();
    }

    /** A private key as PKCS#8 PEM ("PRIVATE KEY"), which every TLS stack reads. */
    public static String encodeKey(PrivateKey key) {
      try {
        return encode(new org.bouncycastle.openssl.jcajce.JcaPKCS8Generator(key, null));
      } catch (org.bouncycastle.util.io.pem.PemGenerationException e) {
        throw new IllegalStateException(e);
      }
    }

    public static X509Certificate[] certificates(String pem) {
      List<X509Certificate> certs = new ArrayList<>();
      try (PEMParser parser = new PEMParser(new StringReader(pem))) {
        for (Object o = parser.readObject(); o != null; o = parser.readObject()) {
          if (o instanceof X509CertificateHolder holder) {
            certs.add(new JcaX509CertificateConverter().getCertificate(holder));
          }
        }
      } catch (IOException | GeneralSecurityException e) {
        throw new IllegalArgumentException("not a PEM certificate chain", e);
      }
      if (certs.isEmpty()) {
        throw new IllegalArgumentException("no certificate in PEM input");
      }
      return certs.toArray(X509Certificate[]::new);
    }

    /** PKCS#8, or the SEC1/PKCS#1 form cert-manager writes depending on its settings. */
    public static PrivateKey privateKey(String pem) {
      try (PEMParser parser = new PEMParser(new StringReader(pem))) {
        JcaPEMKeyConverter converter = new JcaPEMKeyConverter();
        for (Object o = parser.readObject(); o != null; o = parser.readObject()) {
          if (o instanceof PEMKeyPair pair) {
            return converter.getKeyPair(pair).getPrivate();
          }
          if (o instanceof PrivateKeyInfo info) {
            return converter.getPrivateKey(info);
          }
        }
      } catch (IOException e) {
        throw new IllegalArgumentException("not a PEM private key", e);
      }
      throw new IllegalArgumentException("no private key in PEM input");
    }
  }
}
