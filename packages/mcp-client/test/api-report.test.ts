// The exported types, pinned: each entry point's declarations as published (dist/*.d.ts), in
// api/<entry>.api.d.ts. A change there is a change of the public API — review it, and add a changeset.
// Update with `vitest run test/api-report.test.ts -u` after `pnpm build`.
import { apiReport } from "@agentforge/build-config/api-report";
import { describe, expect, it } from "vitest";

const reports = apiReport(new URL("..", import.meta.url));

describe("API report (the exported types)", () => {
  for (const [entry, report] of Object.entries(reports)) {
    const file = entry === "." ? "index" : entry.slice(2).replaceAll("/", "-");
    it(`${entry} is what api/${file}.api.d.ts says`, async () => {
      await expect(report).toMatchFileSnapshot(`../api/${file}.api.d.ts`);
    });
  }
});
