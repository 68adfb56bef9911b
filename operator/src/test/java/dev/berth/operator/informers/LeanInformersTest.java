package dev.berth.operator.informers;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.codeUnits;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaCodeUnit;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import dev.berth.operator.kube.LeanItemStore;
import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;

/**
 * Every informer the operator starts stores its objects through {@link LeanItemStore}: a reconciler
 * added later without it would cache managedFields again (on 10,000 Jobs and their pods, tens of
 * MiB of a 1 GiB limit).
 */
@AnalyzeClasses(
    packages = "dev.berth.operator",
    importOptions = ImportOption.DoNotIncludeTests.class)
class LeanInformersTest {

  /**
   * Lean, and listing with a limit: a limit also makes the first list a consistent read, not the
   * watch cache's (see Informers).
   */
  @ArchTest
  static final ArchRule everyReconcilersInformerIsLeanAndListsWithALimit =
      classes()
          .that()
          .areAnnotatedWith(ControllerConfiguration.class)
          .should(
              new ArchCondition<JavaClass>(
                  "name LeanItemStore as @Informer(itemStore) and set its informerListLimit") {
                @Override
                public void check(JavaClass reconciler, ConditionEvents events) {
                  var informer =
                      reconciler.reflect().getAnnotation(ControllerConfiguration.class).informer();
                  events.add(
                      new SimpleConditionEvent(
                          reconciler,
                          informer.itemStore() == LeanItemStore.class
                              && informer.informerListLimit() == Informers.LIST_LIMIT,
                          reconciler.getName()
                              + "'s informer stores in "
                              + informer.itemStore().getName()
                              + " and lists with limit "
                              + informer.informerListLimit()));
                }
              });

  @ArchTest
  static final ArchRule everySecondaryInformerIsLeanAndListsWithALimit =
      codeUnits()
          .that(callInformerEventSourceConfigurationFrom())
          .should(
              new ArchCondition<JavaCodeUnit>("give the builder a LeanItemStore and a list limit") {
                @Override
                public void check(JavaCodeUnit method, ConditionEvents events) {
                  long from = calls(method, "from");
                  long stores = calls(method, "withItemStore");
                  long limits = calls(method, "withInformerListLimit");
                  events.add(
                      new SimpleConditionEvent(
                          method,
                          stores >= from && limits >= from && constructsLeanItemStore(method),
                          method.getFullName()
                              + " builds "
                              + from
                              + " informer configuration(s) and sets "
                              + stores
                              + " LeanItemStore(s) and "
                              + limits
                              + " list limit(s)"));
                }
              });

  private static com.tngtech.archunit.base.DescribedPredicate<JavaCodeUnit>
      callInformerEventSourceConfigurationFrom() {
    return com.tngtech.archunit.base.DescribedPredicate.describe(
        "build an InformerEventSourceConfiguration", method -> calls(method, "from") > 0);
  }

  /** Calls from {@code method} to a method of that name on the configuration or its builder. */
  private static long calls(JavaCodeUnit method, String name) {
    return method.getMethodCallsFromSelf().stream()
        .filter(call -> call.getTarget().getName().equals(name))
        .filter(
            call ->
                call.getTargetOwner().isEquivalentTo(InformerEventSourceConfiguration.class)
                    || call.getTargetOwner()
                        .isEquivalentTo(InformerEventSourceConfiguration.Builder.class))
        .count();
  }

  private static boolean constructsLeanItemStore(JavaCodeUnit method) {
    return method.getConstructorCallsFromSelf().stream()
        .anyMatch(call -> call.getTargetOwner().isAssignableTo(LeanItemStore.class));
  }
}
