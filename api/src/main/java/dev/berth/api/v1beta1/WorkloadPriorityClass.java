package dev.berth.api.v1beta1;

import dev.berth.api.crd.PrinterColumns;
import dev.berth.api.crd.PrinterColumns.Column;
import io.fabric8.generator.annotation.Required;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Version;

/**
 * A priority for workloads that does not touch pod scheduling priority. Like a PriorityClass, its
 * fields sit at the top level (no spec).
 */
@Group(Berth.GROUP)
@Version(Berth.VERSION)
@Plural("workloadpriorityclasses")
@ShortNames({"wpc"})
@PrinterColumns({
  @Column(name = "Value", type = "integer", jsonPath = ".value"),
  @Column(name = "Description", jsonPath = ".description", priority = 1),
  @Column(name = "Age", type = "date", jsonPath = ".metadata.creationTimestamp")
})
public class WorkloadPriorityClass extends CustomResource<Void, Void> {
  @Required private Integer value;

  private String description;

  public Integer getValue() {
    return value;
  }

  public void setValue(Integer value) {
    this.value = value;
  }

  public String getDescription() {
    return description;
  }

  public void setDescription(String description) {
    this.description = description;
  }
}
