package dev.berth.e2e.plane;

import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.util.Collections;

/**
 * This machine's address for a Service's EndpointSlice: the API server dials an aggregated API's or
 * a webhook Service's endpoints, and endpoints may not be loopback addresses.
 */
public final class HostAddress {
  private HostAddress() {}

  /** The first non-loopback, non-link-local IPv4 address of an interface that is up. */
  public static String ipv4() throws IOException {
    for (NetworkInterface nic : Collections.list(NetworkInterface.getNetworkInterfaces())) {
      if (!nic.isUp() || nic.isLoopback()) {
        continue;
      }
      for (InetAddress address : Collections.list(nic.getInetAddresses())) {
        if (address instanceof Inet4Address && !address.isLinkLocalAddress()) {
          return address.getHostAddress();
        }
      }
    }
    throw new AssertionError(
        "no non-loopback IPv4 address: the API server cannot dial a Service's endpoint here");
  }
}
