// Harmonic tide prediction: height(t) = mean + sum of amplitude * cos(speed * t + phase).
import { readFile } from "node:fs/promises";

export async function loadHarbour(name) {
  const harbours = JSON.parse(await readFile(new URL("../data/harbours.json", import.meta.url), "utf8"));
  const harbour = harbours[name];
  if (!harbour) throw new Error(`unknown harbour "${name}"`);
  return harbour;
}

export function heightAt(harbour, date) {
  const hours = date.getTime() / 3_600_000;
  return harbour.constituents.reduce(
    (sum, c) => sum + c.amplitude * Math.cos(((c.speed * hours + c.phase) * Math.PI) / 180),
    harbour.mean,
  );
}

export function predictTurningPoints(harbour, from, days) {
  const points = [];
  const step = 6 * 60_000;
  let previous = heightAt(harbour, from);
  let rising = heightAt(harbour, new Date(from.getTime() + step)) > previous;
  for (let t = from.getTime() + step; t < from.getTime() + days * 86_400_000; t += step) {
    const height = heightAt(harbour, new Date(t));
    if (rising && height < previous)
      points.push({ kind: "high", time: new Date(t - step), height: previous });
    if (!rising && height > previous)
      points.push({ kind: "low", time: new Date(t - step), height: previous });
    rising = height > previous;
    previous = height;
  }
  return points;
}
