// The SDK's Server builds an Ajv instance at construction (for elicitation replies, which these servers
// never request); building it on first use instead takes a few milliseconds off every cold start.
import type {
  JsonSchemaType,
  JsonSchemaValidator,
  jsonSchemaValidator,
} from "@modelcontextprotocol/sdk/validation";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";

/** A JSON Schema validator provider that creates the SDK's Ajv validator only when first asked. */
export class LazyJsonSchemaValidator implements jsonSchemaValidator {
  private ajv: AjvJsonSchemaValidator | undefined;

  /** Compile a validator for `schema` (creating the Ajv instance on first use). */
  getValidator<T>(schema: JsonSchemaType): JsonSchemaValidator<T> {
    this.ajv ??= new AjvJsonSchemaValidator();
    return this.ajv.getValidator<T>(schema);
  }
}
