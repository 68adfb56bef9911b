package dev.berth.webhook.validation;

import java.util.regex.Pattern;

/** Kubernetes' name grammars: DNS subdomains and labels, label keys and values, resource names. */
final class Names {
  private static final Pattern DNS_LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?");
  private static final Pattern DNS_SUBDOMAIN =
      Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");
  private static final Pattern QUALIFIED_NAME_PART =
      Pattern.compile("[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?");
  private static final Pattern LABEL_VALUE =
      Pattern.compile("([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?");

  private Names() {}

  /** Why {@code value} is not a DNS subdomain (RFC 1123), or null when it is one. */
  static String dnsSubdomainProblem(String value) {
    if (value.length() > 253) {
      return "must be no more than 253 characters";
    }
    if (!DNS_SUBDOMAIN.matcher(value).matches()) {
      return "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters,"
          + " '-' or '.', and must start and end with an alphanumeric character";
    }
    return null;
  }

  static String dnsLabelProblem(String value) {
    if (value.length() > 63) {
      return "must be no more than 63 characters";
    }
    if (!DNS_LABEL.matcher(value).matches()) {
      return "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or"
          + " '-', and must start and end with an alphanumeric character";
    }
    return null;
  }

  /** A qualified name as used by label keys and extended resource names: [prefix/]name. */
  static String qualifiedNameProblem(String value) {
    String name = value;
    int slash = value.indexOf('/');
    if (slash >= 0) {
      if (value.indexOf('/', slash + 1) >= 0) {
        return "a qualified name must have at most one '/'";
      }
      String prefix = value.substring(0, slash);
      name = value.substring(slash + 1);
      if (prefix.isEmpty()) {
        return "prefix part must be non-empty";
      }
      String prefixProblem = dnsSubdomainProblem(prefix);
      if (prefixProblem != null) {
        return "prefix part " + prefixProblem;
      }
    }
    if (name.isEmpty()) {
      return "name part must be non-empty";
    }
    if (name.length() > 63) {
      return "name part must be no more than 63 characters";
    }
    if (!QUALIFIED_NAME_PART.matcher(name).matches()) {
      return "name part must consist of alphanumeric characters, '-', '_' or '.', and must start"
          + " and end with an alphanumeric character";
    }
    return null;
  }

  static String labelValueProblem(String value) {
    if (value.length() > 63) {
      return "must be no more than 63 characters";
    }
    if (!LABEL_VALUE.matcher(value).matches()) {
      return "a valid label must be an empty string or consist of alphanumeric characters, '-',"
          + " '_' or '.', and must start and end with an alphanumeric character";
    }
    return null;
  }
}
