// Regenerates schema.json from the zod schema: `pnpm --filter @agentforge/mcp-config schema`.
import { writeFileSync } from "node:fs";
import { mcpConfigJsonSchema } from "../src/json-schema.js";

const target = new URL("../schema.json", import.meta.url);
writeFileSync(target, `${JSON.stringify(mcpConfigJsonSchema(), null, 2)}\n`);
console.log(`wrote ${target.pathname}`);
