import { AjvJsonSchemaValidator } from "@modelcontextprotocol/client/validators/ajv";

/** The JSON Schema validator of every client (output schemas), shared so compiled schemas are reused. */
export const SCHEMA_VALIDATOR = new AjvJsonSchemaValidator();
