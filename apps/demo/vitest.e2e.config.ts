import { e2eConfig } from "@agentforge/build-config/vitest";
import { defineConfig } from "vitest/config";

// Every test here starts real processes (CLI runs of 0.7-0.9 s each on a quiet machine, MCP servers,
// Chromium). The budgets are several times a quiet run so a busy 2-core machine does not fail them;
// tests assert counters and outcomes, never durations.
export default defineConfig(e2eConfig({ testTimeout: 120_000, hookTimeout: 180_000 }));
