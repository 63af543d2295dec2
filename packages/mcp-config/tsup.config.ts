import { libraryConfig } from "@agentforge/build-config/tsup";
import { defineConfig } from "tsup";

export default defineConfig(
  libraryConfig({ index: "src/index.ts", node: "src/node.ts", core: "src/core.ts" }),
);
