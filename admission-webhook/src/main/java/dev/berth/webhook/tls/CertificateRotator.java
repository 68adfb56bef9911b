package dev.berth.webhook.tls;

import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Checks the certificate source on a schedule and hot-swaps renewed key material into the server's
 * key manager. A failed check is logged and tried again next period: the certificate in use stays
 * valid for a third of its lifetime after renewal becomes due.
 */
public final class CertificateRotator implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(CertificateRotator.class);

  private final CertificateSource source;
  private final ServingKeyManager keyManager;
  private final Clock clock;
  private final ScheduledExecutorService scheduler;

  public CertificateRotator(CertificateSource source, ServingKeyManager keyManager, Clock clock) {
    this.source = source;
    this.keyManager = keyManager;
    this.clock = clock;
    this.scheduler =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "berth-webhook-cert-rotation");
              t.setDaemon(true);
              return t;
            });
  }

  public void start(Duration period) {
    scheduler.scheduleWithFixedDelay(
        this::checkNow, period.toMillis(), period.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** One check: renew or reload if due, then swap. Returns whether the certificate changed. */
  public boolean checkNow() {
    try {
      if (source.refresh(clock.instant())) {
        keyManager.update(source.current());
        LOG.info(
            "webhook serving certificate renewed; valid until {}",
            source.current().leaf().getNotAfter().toInstant());
        return true;
      }
    } catch (RuntimeException e) {
      LOG.warn("webhook certificate check failed; will retry", e);
    }
    return false;
  }

  @Override
  public void close() {
    scheduler.shutdownNow();
  }
}
