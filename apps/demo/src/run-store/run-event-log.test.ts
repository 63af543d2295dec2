import { describe, expect, it } from "vitest";
import { RunEventLog, type RunEventRecord } from "./run-event-log.js";

describe("RunEventLog", () => {
  it("numbers events from 1, replays after an id, and delivers new ones to listeners", () => {
    const log = new RunEventLog("r");
    const seen: (RunEventRecord | null)[] = [];
    const stop = log.subscribe((event) => seen.push(event));
    log.reopen();
    expect(log.open).toBe(true);
    log.append("run_started", { runId: "r" });
    log.append("round_saved", { runId: "r", round: 1 });
    expect(log.lastId).toBe(2);
    expect(log.since(1).map((e) => e.type)).toEqual(["round_saved"]);
    expect(log.since(1)[0]?.data).toMatchObject({
      type: "round_saved",
      runId: "r",
      round: 1,
      at: expect.any(String),
    });
    log.close();
    expect(seen.map((e) => e?.id ?? null)).toEqual([1, 2, null]);
    stop();
    log.reopen();
    log.append("run_started", { runId: "r" });
    expect(seen).toHaveLength(3);
    expect(log.lastId).toBe(3); // a resume continues the numbering
  });

  it("continues from the events it was created with", () => {
    const log = new RunEventLog("r", { events: [{ id: 7, type: "x", at: "t", data: {} }] });
    expect(log.append("y", {}).id).toBe(8);
    expect(log.size).toBe(2);
  });
});
