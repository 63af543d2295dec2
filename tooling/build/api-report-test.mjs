// The test every package's test/api-report.test.ts runs: each entry point's published declarations
// (dist/*.d.ts) against the checked-in api/<entry>.api.d.ts. A difference is a change of the public API —
// review it, and add a changeset. Update with `vitest run test/api-report.test.ts -u` after `pnpm build`.
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { apiReport } from "./api-report.mjs";

/** Pin the API report of the package in `packageDir` (one test per entry point). */
export function describeApiReport(packageDir) {
  const dir = packageDir instanceof URL ? fileURLToPath(packageDir) : String(packageDir);
  const reports = apiReport(dir);
  describe("API report (the exported types)", () => {
    for (const [entry, report] of Object.entries(reports)) {
      const file = entry === "." ? "index" : entry.slice(2).replaceAll("/", "-");
      it(`${entry} is what api/${file}.api.d.ts says`, async () => {
        await expect(report).toMatchFileSnapshot(join(dir, "api", `${file}.api.d.ts`));
      });
    }
  });
}
