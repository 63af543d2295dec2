import assert from "node:assert/strict";
import { test } from "node:test";
import { heightAt } from "../src/tides.js";

test("height stays within mean ± sum of amplitudes", () => {
  const harbour = { mean: 4, constituents: [{ amplitude: 2, speed: 28.984, phase: 0 }] };
  const h = heightAt(harbour, new Date(0));
  assert.ok(h >= 2 && h <= 6);
});
