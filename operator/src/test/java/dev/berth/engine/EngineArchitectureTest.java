package dev.berth.engine;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/** The engine stays pure: no Kubernetes client, operator SDK, API model, I/O, threads or clocks. */
@AnalyzeClasses(packages = "dev.berth.engine", importOptions = ImportOption.DoNotIncludeTests.class)
class EngineArchitectureTest {

  @ArchTest
  static final ArchRule noKubernetesOrOperatorOrApi =
      noClasses()
          .that()
          .resideInAPackage("dev.berth.engine..")
          .should()
          .dependOnClassesThat()
          .resideInAnyPackage(
              "io.fabric8..", "io.javaoperatorsdk..", "dev.berth.api..", "dev.berth.operator..")
          .because("the engine decides; the operator translates API objects into its model");

  @ArchTest
  static final ArchRule noIo =
      noClasses()
          .that()
          .resideInAPackage("dev.berth.engine..")
          .should()
          .dependOnClassesThat()
          .resideInAnyPackage("java.io..", "java.net..", "java.nio.file..")
          .because("the engine does no I/O");

  @ArchTest
  static final ArchRule noThreadsOrClocks =
      noClasses()
          .that()
          .resideInAPackage("dev.berth.engine..")
          .should()
          .dependOnClassesThat()
          .resideInAnyPackage("java.util.concurrent..", "java.time..")
          .orShould()
          .dependOnClassesThat()
          .haveFullyQualifiedName("java.lang.Thread")
          .orShould()
          .callMethod(System.class, "currentTimeMillis")
          .orShould()
          .callMethod(System.class, "nanoTime")
          .because("the engine is single-threaded and time is passed in");
}
