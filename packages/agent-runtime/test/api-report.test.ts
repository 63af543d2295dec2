// The exported types, pinned: each entry point's declarations as published (dist/*.d.ts), in
// api/<entry>.api.d.ts. A change there is a change of the public API — review it, and add a changeset.
// Update with `vitest run test/api-report.test.ts -u` after `pnpm build`.
import { describeApiReport } from "@agentforge/build-config/api-report-test";

describeApiReport(new URL("..", import.meta.url));
