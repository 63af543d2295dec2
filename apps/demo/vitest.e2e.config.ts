import { e2eConfig } from "@agentforge/build-config/vitest";
import { defineConfig } from "vitest/config";

// Every test here starts real processes (CLI runs, MCP servers, Chromium). The shared e2e budgets are
// several times a quiet run so a busy 2-core machine does not fail them; tests assert counters and
// outcomes, never durations.
export default defineConfig(e2eConfig());
