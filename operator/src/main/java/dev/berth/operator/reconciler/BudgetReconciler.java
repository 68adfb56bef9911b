package dev.berth.operator.reconciler;

import dev.berth.api.v1beta1.Budget;
import dev.berth.operator.admission.AdmissionLoop;
import dev.berth.operator.budget.BudgetBook;
import dev.berth.operator.budget.BudgetPublisher;
import dev.berth.operator.informers.InformerCaches;
import dev.berth.operator.informers.Informers;
import dev.berth.operator.kube.LeanItemStore;
import dev.berth.webhook.validation.BerthValidators;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import java.time.Clock;
import java.util.List;
import java.util.Map;

/** Feeds Budgets to the {@link BudgetBook} on the loop thread; an invalid version is not fed. */
@ControllerConfiguration(
    informer = @Informer(informerListLimit = Informers.LIST_LIMIT, itemStore = LeanItemStore.class),
    triggerReconcilerOnAllEvents = true,
    // Status changes too: the book holds the version its status writes are made from.
    generationAwareEventProcessing = false)
public final class BudgetReconciler implements Reconciler<Budget> {
  private final AdmissionLoop loop;
  private final InformerCaches caches;
  private final SpecCheck check;
  private final BudgetBook book;
  private final BudgetPublisher publisher;
  private final Clock clock;

  public BudgetReconciler(
      AdmissionLoop loop,
      InformerCaches caches,
      SpecCheck check,
      BudgetBook book,
      BudgetPublisher publisher,
      Clock clock) {
    this.loop = loop;
    this.caches = caches;
    this.check = check;
    this.book = book;
    this.publisher = publisher;
    this.clock = clock;
  }

  @Override
  public List<EventSource<?, Budget>> prepareEventSources(EventSourceContext<Budget> context) {
    return caches.primary(Budget.class, context, Map.of());
  }

  @Override
  public UpdateControl<Budget> reconcile(Budget budget, Context<Budget> context) {
    String name = budget.getMetadata().getName();
    if (context.isPrimaryResourceDeleted()) {
      loop.submit(
          state -> {
            book.delete(name);
            publisher.deleted(name);
            publisher.evaluateNow(state);
          });
    } else if (check.accepts(budget, BerthValidators.budget(budget))) {
      // The cached instance is shared: the book keeps it and never changes it.
      loop.submit(
          state -> {
            book.upsert(budget, clock.instant());
            publisher.evaluateNow(state);
          });
    }
    // An invalid version: the last valid one stays in force (SpecCheck's Warning says why).
    return UpdateControl.noUpdate();
  }
}
