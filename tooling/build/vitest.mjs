// Shared vitest presets: `unit` (next to the code, no I/O) and `e2e` (test/e2e, real processes).
const shared = {
  exclude: ["**/node_modules/**", "**/dist/**", "**/*.live.test.ts"],
  // Real child processes and PGlite start-up are slow on a busy 2-core machine.
  testTimeout: 30_000,
  hookTimeout: 60_000,
};

export function unitConfig(overrides = {}) {
  return {
    test: {
      ...shared,
      include: ["src/**/*.test.ts", "test/*.test.ts"],
      typecheck: { enabled: true, include: ["src/**/*.test-d.ts", "test/**/*.test-d.ts"] },
      ...overrides,
    },
  };
}

export function e2eConfig(overrides = {}) {
  return {
    test: {
      ...shared,
      include: ["test/e2e/**/*.e2e.test.ts"],
      // Child processes each need a core; more forks than cores only adds timeouts.
      maxWorkers: 2,
      ...overrides,
    },
  };
}
