package dev.berth.webhook.validation;

import java.util.ArrayList;
import java.util.List;

/** An accumulating list of field errors: validators report every problem, not just the first. */
final class Errors {
  private final List<FieldError> list = new ArrayList<>();

  void add(FieldError e) {
    list.add(e);
  }

  void addAll(List<FieldError> more) {
    list.addAll(more);
  }

  /** Adds an error when the string is present and not a DNS subdomain. */
  void dnsSubdomain(FieldPath path, String value) {
    if (value != null) {
      String problem = Names.dnsSubdomainProblem(value);
      if (problem != null) {
        add(FieldError.invalid(path, value, problem));
      }
    }
  }

  void dnsLabel(FieldPath path, String value) {
    if (value != null) {
      String problem = Names.dnsLabelProblem(value);
      if (problem != null) {
        add(FieldError.invalid(path, value, problem));
      }
    }
  }

  void labelKey(FieldPath path, String value) {
    if (value != null) {
      String problem = Names.qualifiedNameProblem(value);
      if (problem != null) {
        add(FieldError.invalid(path, value, problem));
      }
    }
  }

  void labelValue(FieldPath path, String value) {
    if (value != null) {
      String problem = Names.labelValueProblem(value);
      if (problem != null) {
        add(FieldError.invalid(path, value, problem));
      }
    }
  }

  List<FieldError> toList() {
    return List.copyOf(list);
  }
}
