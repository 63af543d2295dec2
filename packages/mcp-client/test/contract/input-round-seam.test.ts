/**
 * Contract: the connection's client (lifecycle/client-setup.ts) sees each input_required round by
 * overriding the SDK Client's protected `_resolveNonCompleteResult(decoded, flow)` and wrapping
 * `flow.retry`. When an SDK update renames or reshapes that seam, this names the assumption that broke
 * (test/e2e/input-rounds.e2e.test.ts then shows what no longer works: rounds unreported, state unbounded).
 */
import { Client } from "@modelcontextprotocol/client";
import { describe, expect, it } from "vitest";

describe("the SDK's input_required seam", () => {
  it("Client still resolves non-complete results through _resolveNonCompleteResult(decoded, flow)", () => {
    const seam = (Client.prototype as unknown as Record<string, unknown>)._resolveNonCompleteResult;
    expect(typeof seam).toBe("function");
    expect((seam as (...args: unknown[]) => unknown).length).toBe(2);
  });
});
