package dev.berth.operator;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

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
 * that observe and never decide, production code that does not reach local mode, and no cycle
 * between its packages.
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
          .that()
          .resideOutsideOfPackages("dev.berth.operator.local..", "dev.berth.operator.launch..")
          .should()
          .dependOnClassesThat()
          .resideInAPackage("dev.berth.operator.local..")
          .because(
              "local mode is a way to run the operator, not a part of it (and the operator"
                  + " depending on it would make a package cycle: local mode starts the operator)");

  @ArchTest
  static final ArchRule onlyTheConfigurationReadsEnvironmentVariables =
      noClasses()
          .that()
          .resideOutsideOfPackages("dev.berth.operator.config..", "dev.berth.operator.local..")
          .should()
          .callMethod(System.class, "getenv")
          .orShould()
          .callMethod(System.class, "getenv", String.class)
          .because(
              "the configuration is read and checked once, at start, by ConfigurationLoader (a"
                  + " variable overrides a field of the file); every other class is handed its"
                  + " section. Local mode, leaving the operator's jar, finds its own binaries");

  @ArchTest
  static final ArchRule packagesAreFreeOfCycles =
      slices()
          .matching("dev.berth.operator.(*)..")
          .should()
          .beFreeOfCycles()
          .because(
              "two packages in a cycle are one: neither can be read, tested or changed alone. The"
                  + " side ledgers (usage, capacity) observe the admission loop's state through"
                  + " ClusterObserver, the publishers and visibility read it through ClusterView,"
                  + " and admission reaches none of them");
}
