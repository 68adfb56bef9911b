package dev.berth.operator;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaConstructorCall;
import com.tngtech.archunit.core.domain.JavaFieldAccess;
import com.tngtech.archunit.core.domain.JavaMethodCall;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;
import dev.berth.api.v1beta1.WorkloadStatus;
import dev.berth.operator.admission.DecisionWriter;
import dev.berth.operator.integration.WorkloadLifecycle;
import io.fabric8.kubernetes.client.Client;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.kubernetes.client.utils.TokenRefreshInterceptor;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.javaoperatorsdk.operator.processing.event.source.IndexerResourceCache;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import io.javaoperatorsdk.operator.processing.event.source.informer.Mappers;
import io.javaoperatorsdk.operator.processing.retry.GenericRetry;
import java.util.Set;

/**
 * The operator's layers, as docs/architecture.md draws them: one writer of admission, reconcilers
 * that observe and never decide, production code that does not reach local mode, one package,
 * {@code kube}, where Berth bends fabric8 and JOSDK (docs/architecture.md, "Where Berth bends its
 * libraries"), and no cycle between its packages.
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

  @ArchTest
  static final ArchRule onlyTheConfigurationReadsEnvironmentVariables =
      noClasses()
          .that()
          .resideOutsideOfPackage("dev.berth.operator.config..")
          .should()
          .callMethod(System.class, "getenv")
          .orShould()
          .callMethod(System.class, "getenv", String.class)
          .because(
              "the configuration is read and checked once, at start, by ConfigurationLoader (a"
                  + " variable overrides a field of the file); every other class is handed its"
                  + " section");

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

  private static final String KUBE = "dev.berth.operator.kube..";

  /** The API model packages: fabric8's and Berth's own. */
  private static boolean isModel(JavaClass type) {
    String name = type.getPackageName();
    return name.startsWith("io.fabric8.kubernetes.api.model") || name.startsWith("dev.berth.api");
  }

  /**
   * A copy of an object: fabric8's JSON round trip ({@code Serialization.clone}, {@code
   * KubernetesSerialization.clone}), or a model object's builder made from it ({@code toBuilder},
   * {@code edit}).
   */
  private static final DescribedPredicate<JavaMethodCall> COPIES =
      DescribedPredicate.describe(
          "copy an object (Serialization.clone, KubernetesSerialization.clone, toBuilder, edit)",
          call -> {
            JavaClass owner = call.getTargetOwner();
            String name = call.getName();
            if (name.equals("clone")
                && (owner.isAssignableTo(Serialization.class)
                    || owner.isAssignableTo(KubernetesSerialization.class))) {
              return true;
            }
            return (name.equals("toBuilder") || name.equals("edit")) && isModel(owner);
          });

  /** {@code new XBuilder(x)}: a model object's builder made from an object of its kind. */
  private static final DescribedPredicate<JavaConstructorCall> COPY_BUILDERS =
      DescribedPredicate.describe(
          "make a model builder from an object (new XBuilder(x))",
          call -> {
            JavaClass owner = call.getTargetOwner();
            if (!isModel(owner) || !owner.getSimpleName().endsWith("Builder")) {
              return false;
            }
            String built = owner.getName().substring(0, owner.getName().length() - 7);
            return call.getTarget().getRawParameterTypes().stream()
                .anyMatch(p -> p.getName().equals(built));
          });

  /** {@code String.intern()}. */
  private static final DescribedPredicate<JavaMethodCall> INTERNS =
      DescribedPredicate.describe(
          "intern a string",
          call ->
              call.getTargetOwner().isEquivalentTo(String.class)
                  && call.getName().equals("intern"));

  /** The client's raw HTTP client, to send a request built by hand. */
  private static final DescribedPredicate<JavaMethodCall> RAW_HTTP =
      DescribedPredicate.describe(
          "take the client's raw HTTP client (getHttpClient)",
          call ->
              call.getTargetOwner().isAssignableTo(Client.class)
                  && call.getName().equals("getHttpClient"));

  @ArchTest
  static final ArchRule onlyKubeCopiesInternsOrSendsRequestsByHand =
      noClasses()
          .that()
          .resideOutsideOfPackage(KUBE)
          .should()
          .callMethodWhere(COPIES)
          .orShould()
          .callConstructorWhere(COPY_BUILDERS)
          .orShould()
          .callMethodWhere(INTERNS)
          .orShould()
          .callMethodWhere(RAW_HTTP)
          .because(
              "cached objects are shared (SharedVersions, SharedEmpties, ReconcileCopies): whoever"
                  + " changes one starts from kube.Copies; interning and hand-built requests"
                  + " (StatusPut, RawCreate) depend on fabric8's internals and are listed in"
                  + " docs/architecture.md with what to re-check on an upgrade");

  /**
   * JOSDK's processing package, but for the classes it documents for reconcilers (and its rate
   * limiters and event filters, below).
   */
  private static final Set<Class<?>> JOSDK_PUBLIC_PROCESSING =
      Set.of(
          ResourceID.class,
          EventSource.class,
          IndexerResourceCache.class,
          InformerEventSource.class,
          Mappers.class,
          GenericRetry.class);

  /** fabric8's implementation and HTTP layers and JOSDK's processing internals. */
  private static final DescribedPredicate<JavaClass> LIBRARY_INTERNALS =
      DescribedPredicate.describe(
          "are fabric8's impl, internal, informer cache, HTTP or Vert.x classes, its token"
              + " refresh, JOSDK's processing internals or its recent-operation cache",
          type -> {
            String name = type.getPackageName();
            if (name.startsWith("io.fabric8.kubernetes.client.impl")
                || name.startsWith("io.fabric8.kubernetes.client.dsl.internal")
                || name.startsWith("io.fabric8.kubernetes.client.informers.impl")
                || name.startsWith("io.fabric8.kubernetes.client.informers.cache")
                || name.startsWith("io.fabric8.kubernetes.client.utils.internal")
                || name.startsWith("io.fabric8.kubernetes.client.http")
                || name.startsWith("io.fabric8.kubernetes.client.vertx")
                || type.isEquivalentTo(TokenRefreshInterceptor.class)
                || name.startsWith("io.javaoperatorsdk.operator.api.reconciler.dependent")) {
              return true;
            }
            // The rate limiters and event filters are the defaults of @ControllerConfiguration
            // and @Informer, configuration a reconciler names.
            return name.startsWith("io.javaoperatorsdk.operator.processing")
                && !name.equals("io.javaoperatorsdk.operator.processing.event.rate")
                && !name.equals("io.javaoperatorsdk.operator.processing.event.source.filter")
                && JOSDK_PUBLIC_PROCESSING.stream().noneMatch(type::isEquivalentTo);
          });

  @ArchTest
  static final ArchRule onlyKubeReachesLibraryInternals =
      noClasses()
          .that()
          .resideOutsideOfPackage(KUBE)
          .should()
          .dependOnClassesThat(LIBRARY_INTERNALS)
          .because(
              "kube is the one place that depends on how fabric8 and JOSDK work inside, so that"
                  + " an upgrade re-checks one package (docs/architecture.md)");

  @ArchTest
  static final ArchRule kubeDependsOnNoOtherPartOfTheOperator =
      noClasses()
          .that()
          .resideInAPackage(KUBE)
          .should()
          .dependOnClassesThat(
              JavaClass.Predicates.resideInAPackage("dev.berth.operator..")
                  .and(JavaClass.Predicates.resideOutsideOfPackage(KUBE)))
          .because("kube is the operator's lowest layer: every other package may use it");
}
