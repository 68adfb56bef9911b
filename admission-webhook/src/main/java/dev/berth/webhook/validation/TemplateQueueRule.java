package dev.berth.webhook.validation;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;

/**
 * The queue rule of a kind that makes workloads or pods from a template (a CronJob's Jobs, a
 * Deployment's pods): refused once, at the owner's create or update, when what it makes would be
 * refused one by one where nobody sees it.
 */
public interface TemplateQueueRule {
  List<FieldError> onCreate(String namespace, JsonNode object);

  List<FieldError> onUpdate(String namespace, JsonNode old, JsonNode object);
}
