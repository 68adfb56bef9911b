package dev.berth.operator.visibility;

import dev.berth.operator.config.Configuration;

/**
 * The HTTPS port's settings, the configuration's {@code visibility} section: its port (default
 * 8443; the visibility API, always) and whether the web dashboard is served on it too (default
 * false).
 */
public record HttpsSettings(int port, boolean dashboard) {
  public static HttpsSettings of(Configuration.Visibility section) {
    return new HttpsSettings(section.port(), section.dashboard());
  }
}
