import { e2eConfig } from "@agentforge/build-config/vitest";
import { defineConfig } from "vitest/config";

export default defineConfig(e2eConfig());
