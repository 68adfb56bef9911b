package dev.berth.operator;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaFieldAccess;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;
import dev.berth.api.v1beta1.WorkloadStatus;
import dev.berth.operator.admission.DecisionWriter;
import dev.berth.operator.job.WorkloadLifecycle;

/**
 * The operator's layers, as docs/architecture.md draws them: one writer of admission, reconcilers
 * that observe and never decide, and production code that does not reach local mode.
 */
@AnalyzeClasses(
    packages = "dev.berth.operator",
    importOptions = ImportOption.DoNotIncludeTests.class)
class OperatorArchitectureTest {

  /** A write of Workload.status.admission. */
  private static final DescribedPredicate<JavaFieldAccess> WRITES_ADMISSION =
      DescribedPredicate.describe(
          "write WorkloadStatus.admission",
          access ->
              access.getAccessType() == JavaFieldAccess.AccessType.SET
                  && access.getTarget().getOwner().isEquivalentTo(WorkloadStatus.class)
                  && access.getTarget().getName().equals("admission"));

  @ArchTest
  static final ArchRule admissionIsGrantedByDecisionWriterAndReleasedByWorkloadLifecycle =
      noClasses()
          .that()
          .doNotBelongToAnyOf(DecisionWriter.class, WorkloadLifecycle.class)
          .should()
          .accessFieldWhere(WRITES_ADMISSION)
          .because(
              "DecisionWriter writes the engine's admissions (with their resourceVersions);"
                  + " WorkloadLifecycle only releases one once an evicted workload's pods stopped");

  @ArchTest
  static final ArchRule reconcilersDoNotDecideAdmission =
      noClasses()
          .that()
          .resideInAPackage("dev.berth.operator.reconciler..")
          .should()
          .dependOnClassesThat()
          .belongToAnyOf(dev.berth.engine.AdmissionEngine.class, DecisionWriter.class)
          .because("reconcilers hand observations to the admission loop; only its cycle decides");

  @ArchTest
  static final ArchRule productionCodeDoesNotReachLocalMode =
      noClasses()
          .should()
          .dependOnClassesThat()
          .resideInAnyPackage("dev.berth.local..", "io.fabric8.kubeapitest..")
          .because(
              "local mode and its control plane (kube-api-test) live in the local module, which"
                  + " starts the operator; the operator's jar and image do not carry them");
}
