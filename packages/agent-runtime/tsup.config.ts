import { libraryConfig } from "@agentforge/build-config/tsup";
import { defineConfig } from "tsup";

export default defineConfig(
  libraryConfig({
    index: "src/index.ts",
    "ai-sdk": "src/ai-sdk/index.ts",
    langchain: "src/langchain/index.ts",
    node: "src/node/index.ts",
    otel: "src/otel/index.ts",
    testing: "src/testing/index.ts",
  }),
);
