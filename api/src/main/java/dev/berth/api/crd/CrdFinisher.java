package dev.berth.api.crd;

import dev.berth.api.v1beta1.BerthKinds;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceColumnDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceColumnDefinitionBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionVersion;
import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaProps;
import io.fabric8.kubernetes.api.model.apiextensions.v1.ValidationRule;
import io.fabric8.kubernetes.api.model.apiextensions.v1.ValidationRuleBuilder;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Completes the CRDs that crd-generator-apt wrote, from annotations on the same model classes: list
 * and map bounds ({@link Items}), string bounds ({@link MaxLength}), times ({@link DateTime}),
 * printer columns with JSONPath filters ({@link PrinterColumns}), and CEL rules ({@link Rule}).
 * Runs in the api module's process-classes phase, so the CRD in the jar and in the chart is always
 * generated, never edited by hand.
 */
public final class CrdFinisher {

  private CrdFinisher() {}

  public static void main(String[] args) throws IOException {
    Path dir = Path.of(args.length > 0 ? args[0] : "target/classes/META-INF/fabric8");
    for (Class<? extends CustomResource<?, ?>> kind : BerthKinds.ALL) {
      String plural = HasMetadata.getPlural(kind);
      Path file = dir.resolve(plural + "." + HasMetadata.getGroup(kind) + "-v1.yml");
      if (!Files.exists(file)) {
        throw new IllegalStateException("crd-generator-apt did not write " + file);
      }
      CustomResourceDefinition crd =
          Serialization.unmarshal(
              Files.readString(file, StandardCharsets.UTF_8), CustomResourceDefinition.class);
      finish(crd, kind);
      Files.writeString(file, Serialization.asYaml(crd), StandardCharsets.UTF_8);
    }
  }

  static void finish(CustomResourceDefinition crd, Class<?> kind) {
    for (CustomResourceDefinitionVersion version : crd.getSpec().getVersions()) {
      JSONSchemaProps root = version.getSchema().getOpenAPIV3Schema();
      applyRoot(root, kind);
      PrinterColumns columns = kind.getAnnotation(PrinterColumns.class);
      if (columns != null) {
        version.setAdditionalPrinterColumns(printerColumns(columns));
      }
    }
  }

  private static List<CustomResourceColumnDefinition> printerColumns(PrinterColumns columns) {
    List<CustomResourceColumnDefinition> result = new ArrayList<>();
    for (PrinterColumns.Column column : columns.value()) {
      result.add(
          new CustomResourceColumnDefinitionBuilder()
              .withName(column.name())
              .withType(column.type())
              .withJsonPath(column.jsonPath())
              .withDescription(column.description().isEmpty() ? null : column.description())
              .withPriority(column.priority() == 0 ? null : column.priority())
              .build());
    }
    return result;
  }

  private static void applyRoot(JSONSchemaProps root, Class<?> kind) {
    Type[] specAndStatus = customResourceTypeArguments(kind);
    Map<String, JSONSchemaProps> properties = root.getProperties();
    if (properties == null) {
      return;
    }
    if (properties.containsKey("spec")) {
      apply(properties.get("spec"), specAndStatus[0]);
      addRules(properties.get("spec"), classOf(specAndStatus[0]).getAnnotationsByType(Rule.class));
    }
    if (properties.containsKey("status")) {
      apply(properties.get("status"), specAndStatus[1]);
      addRules(
          properties.get("status"), classOf(specAndStatus[1]).getAnnotationsByType(Rule.class));
    }
    addRules(root, kind.getAnnotationsByType(Rule.class));
    applyFields(root, kind);
  }

  private static Class<?> classOf(Type type) {
    return type instanceof Class<?> cls ? cls : Object.class;
  }

  private static Type[] customResourceTypeArguments(Class<?> kind) {
    Type superType = kind.getGenericSuperclass();
    if (superType instanceof ParameterizedType parameterized) {
      return parameterized.getActualTypeArguments();
    }
    throw new IllegalArgumentException(kind + " must extend CustomResource<Spec, Status>");
  }

  /** Walks a schema node and the Java type it was generated from, side by side. */
  private static void apply(JSONSchemaProps schema, Type type) {
    if (schema == null) {
      return;
    }
    if (type instanceof ParameterizedType parameterized) {
      Type raw = parameterized.getRawType();
      Type[] arguments = parameterized.getActualTypeArguments();
      if (raw == List.class && schema.getItems() != null) {
        apply(schema.getItems().getSchema(), arguments[0]);
      } else if (raw == Map.class && schema.getAdditionalProperties() != null) {
        apply(schema.getAdditionalProperties().getSchema(), arguments[1]);
      }
      return;
    }
    if (type instanceof Class<?> cls && cls.getPackageName().startsWith("dev.berth.api")) {
      applyFields(schema, cls);
    }
  }

  private static void applyFields(JSONSchemaProps schema, Class<?> cls) {
    if (schema.getProperties() == null) {
      return;
    }
    for (Field field : cls.getDeclaredFields()) {
      if (Modifier.isStatic(field.getModifiers())) {
        continue;
      }
      JSONSchemaProps property = schema.getProperties().get(field.getName());
      if (property == null) {
        continue;
      }
      Items items = field.getAnnotation(Items.class);
      if (items != null) {
        bound(property, items, cls.getSimpleName() + "." + field.getName());
      }
      MaxLength maxLength = field.getAnnotation(MaxLength.class);
      if (maxLength != null) {
        elementSchema(property).setMaxLength((long) maxLength.value());
      }
      if (field.isAnnotationPresent(DateTime.class)) {
        elementSchema(property).setFormat("date-time");
      }
      ListType listType = field.getAnnotation(ListType.class);
      if (listType != null) {
        listType(property, listType);
      }
      addRules(property, field.getAnnotationsByType(Rule.class));
      apply(property, field.getGenericType());
      Class<?> nested = classOf(elementType(field.getGenericType()));
      if (nested.getPackageName().startsWith("dev.berth.api")) {
        addRules(elementSchema(property), nested.getAnnotationsByType(Rule.class));
      }
    }
  }

  /** The type a rule on the element class applies to: T for a List of T, else the type itself. */
  private static Type elementType(Type type) {
    if (type instanceof ParameterizedType parameterized) {
      Type[] arguments = parameterized.getActualTypeArguments();
      return arguments[arguments.length - 1];
    }
    return type;
  }

  private static JSONSchemaProps elementSchema(JSONSchemaProps property) {
    if (property.getItems() != null) {
      return property.getItems().getSchema();
    }
    if (property.getAdditionalProperties() != null
        && property.getAdditionalProperties().getSchema() != null) {
      return property.getAdditionalProperties().getSchema();
    }
    return property;
  }

  private static void addRules(JSONSchemaProps schema, Rule[] rules) {
    if (rules.length == 0) {
      return;
    }
    List<ValidationRule> validations = new ArrayList<>();
    if (schema.getXKubernetesValidations() != null) {
      validations.addAll(schema.getXKubernetesValidations());
    }
    for (Rule rule : rules) {
      // The finisher may run again on its own output (process-classes without a recompile).
      if (validations.stream().anyMatch(v -> rule.value().equals(v.getRule()))) {
        continue;
      }
      validations.add(
          new ValidationRuleBuilder().withRule(rule.value()).withMessage(rule.message()).build());
    }
    schema.setXKubernetesValidations(validations);
  }

  private static void listType(JSONSchemaProps property, ListType listType) {
    property.setXKubernetesListType(listType.value());
    if (listType.keys().length > 0) {
      property.setXKubernetesListMapKeys(List.of(listType.keys()));
      JSONSchemaProps item = property.getItems().getSchema();
      List<String> required = new ArrayList<>();
      if (item.getRequired() != null) {
        required.addAll(item.getRequired());
      }
      for (String key : listType.keys()) {
        if (!required.contains(key)) {
          required.add(key);
        }
      }
      item.setRequired(required);
    }
  }

  private static void bound(JSONSchemaProps property, Items items, String where) {
    if ("array".equals(property.getType())) {
      property.setMaxItems((long) items.max());
      if (items.min() > 0) {
        property.setMinItems((long) items.min());
      }
    } else if ("object".equals(property.getType())) {
      property.setMaxProperties((long) items.max());
      if (items.min() > 0) {
        property.setMinProperties((long) items.min());
      }
    } else {
      throw new IllegalStateException("@Items on " + where + " which is neither a list nor a map");
    }
  }
}
