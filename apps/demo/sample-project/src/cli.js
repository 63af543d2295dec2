#!/usr/bin/env node
// Command line: tidewatch --harbour NAME [--days N]
import { parseArgs } from "node:util";
import { loadHarbour, predictTurningPoints } from "./tides.js";

const { values } = parseArgs({
  options: { harbour: { type: "string" }, days: { type: "string", default: "1" } },
});
if (!values.harbour) {
  console.error("usage: tidewatch --harbour NAME [--days N]");
  process.exit(2);
}
const harbour = await loadHarbour(values.harbour);
for (const point of predictTurningPoints(harbour, new Date(), Number(values.days))) {
  console.log(`${point.kind.padEnd(4)} ${point.time.toISOString()} ${point.height.toFixed(2)} m`);
}
