package dev.berth.api.v1beta1;

import dev.berth.api.crd.MaxLength;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;

/** Which month the report covers. */
public class UsageReportSpec {
  /** The calendar month in UTC, YYYY-MM: runs that ended in it are counted here. */
  @Required
  @Pattern("^[0-9]{4}-(0[1-9]|1[0-2])$")
  @MaxLength(7)
  public String month;
}
