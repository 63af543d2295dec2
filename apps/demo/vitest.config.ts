import { unitConfig } from "@agentforge/build-config/vitest";
import { defineConfig } from "vitest/config";

export default defineConfig(unitConfig());
