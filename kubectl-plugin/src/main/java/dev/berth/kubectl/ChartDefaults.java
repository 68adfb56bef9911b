package dev.berth.kubectl;

/**
 * Where the chart puts Berth when installed as the docs say ({@code helm install berth ./helm/berth
 * -n berth-system}): the chart's Service is named after the release ({@code berth.fullname}: the
 * release name alone when it contains the chart's name), and its HTTPS port serves the visibility
 * API with the webhook's certificate, which names {@code <service>.<namespace>.svc}. A chart test
 * renders the chart and checks these against it.
 */
public final class ChartDefaults {
  public static final String RELEASE = "berth";
  public static final String NAMESPACE = "berth-system";
  public static final String SERVICE = "berth";
  public static final int HTTPS_PORT = 8443;

  /**
   * The operator's HTTPS port inside the cluster network: what {@code --visibility-url} names to
   * call it directly (by default the plugin goes through the API server instead).
   */
  public static final String VISIBILITY_URL =
      "https://" + SERVICE + "." + NAMESPACE + ".svc:" + HTTPS_PORT;

  private ChartDefaults() {}
}
