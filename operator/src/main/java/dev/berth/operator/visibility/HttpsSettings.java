package dev.berth.operator.visibility;

import java.util.Map;

/**
 * The HTTPS port's settings from the environment the chart sets: {@code BERTH_HTTPS_PORT} (default
 * 8443; the visibility API, always) and {@code BERTH_DASHBOARD_ENABLED} (default false; the web
 * dashboard on the same port).
 */
public record HttpsSettings(int port, boolean dashboard) {
  public static HttpsSettings from(Map<String, String> env) {
    String port = env.getOrDefault("BERTH_HTTPS_PORT", "8443");
    try {
      int number = Integer.parseInt(port.trim());
      if (number < 0 || number > 65535) {
        throw new NumberFormatException();
      }
      return new HttpsSettings(
          number, Boolean.parseBoolean(env.getOrDefault("BERTH_DASHBOARD_ENABLED", "false")));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "BERTH_HTTPS_PORT: expected a port from 0 to 65535, got '" + port + "'");
    }
  }
}
