package dev.berth.webhook.server;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.berth.webhook.validation.FieldError;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.List;

/**
 * Turns an object's JSON into the typed API class. A value of the wrong shape (normally already
 * refused by the CRD schema) becomes a field error at the path Jackson reports.
 */
final class TypedDecoder {
  private static final ObjectMapper MAPPER =
      Serialization.jsonMapper()
          .copy()
          .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);

  /** Thrown when the object cannot be read; carries the field error to report. */
  static final class DecodeFailure extends Exception {
    final FieldError error;

    DecodeFailure(FieldError error) {
      super(error.toString());
      this.error = error;
    }
  }

  private TypedDecoder() {}

  static <T> T decode(JsonNode json, Class<T> type) throws DecodeFailure {
    try {
      return MAPPER.treeToValue(json, type);
    } catch (JsonMappingException e) {
      throw new DecodeFailure(
          new FieldError(
              FieldError.Type.INVALID,
              path(e.getPath()),
              null,
              "cannot be read as " + type.getSimpleName() + ": " + e.getOriginalMessage()));
    } catch (Exception e) {
      throw new DecodeFailure(
          new FieldError(
              FieldError.Type.INVALID, "", null, "cannot be read as " + type.getSimpleName()));
    }
  }

  /** Decodes and validates; an unreadable object is reported as the field error. */
  static <T> List<FieldError> validate(
      JsonNode json, Class<T> type, java.util.function.Function<T, List<FieldError>> rules) {
    try {
      return rules.apply(decode(json, type));
    } catch (DecodeFailure e) {
      return List.of(e.error);
    }
  }

  static <T> List<FieldError> validate(
      JsonNode old,
      JsonNode json,
      Class<T> type,
      java.util.function.BiFunction<T, T, List<FieldError>> rules) {
    try {
      return rules.apply(decode(old, type), decode(json, type));
    } catch (DecodeFailure e) {
      return List.of(e.error);
    }
  }

  private static String path(List<JsonMappingException.Reference> refs) {
    StringBuilder s = new StringBuilder();
    for (JsonMappingException.Reference r : refs) {
      if (r.getFieldName() != null) {
        s.append(s.length() == 0 ? "" : ".").append(r.getFieldName());
      } else if (r.getIndex() >= 0) {
        s.append('[').append(r.getIndex()).append(']');
      }
    }
    return s.toString();
  }
}
