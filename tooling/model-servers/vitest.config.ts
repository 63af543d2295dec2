import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    globals: true,
    include: ["test/**/*.test.ts"],
    // Real HTTP on loopback with the real client libraries; generous for a busy 2-core machine.
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
