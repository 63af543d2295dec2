/**
 * The shared harness behind `pnpm bench`. Each package's bench file measures two or more variants in
 * the same run (so machine noise hits all of them alike) and prints medians, tails and ratios.
 */
import { Bench } from "tinybench";

/** One thing to measure: a name and a function (sync or async) doing one operation. */
export interface Variant {
  name: string;
  fn: () => unknown;
}

/** Summary statistics of one variant, times in milliseconds. */
export interface Figures {
  name: string;
  samples: number;
  medianMs: number;
  p99Ms: number;
  meanMs: number;
  /** Operations per second derived from the mean latency. */
  opsPerSec: number;
}

/** Options for `compare`. */
export interface CompareOptions {
  /** Time budget per variant in ms (default 1000, or `BENCH_TIME_MS`). */
  timeMs?: number;
  /** Minimum iterations per variant (default 10). */
  iterations?: number;
  /** Warm-up time per variant in ms (default 200). */
  warmupMs?: number;
  /** Rounds alternating the variants' order (default 4). */
  rounds?: number;
}

const envTime = Number(process.env.BENCH_TIME_MS);
const defaultTime = Number.isFinite(envTime) && envTime > 0 ? envTime : 1000;

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = (p / 100) * (sorted.length - 1);
  const low = Math.floor(rank);
  const high = Math.ceil(rank);
  const a = sorted[low] ?? Number.NaN;
  const b = sorted[high] ?? a;
  return a + (b - a) * (rank - low);
}

/** Summarise raw latency samples (ms) measured by hand, e.g. one cold start per sample. */
export function summarize(name: string, samplesMs: readonly number[]): Figures {
  const sorted = [...samplesMs].sort((x, y) => x - y);
  const mean = sorted.reduce((sum, x) => sum + x, 0) / Math.max(1, sorted.length);
  return {
    name,
    samples: sorted.length,
    medianMs: percentile(sorted, 50),
    p99Ms: percentile(sorted, 99),
    meanMs: mean,
    opsPerSec: mean > 0 ? 1000 / mean : Number.POSITIVE_INFINITY,
  };
}

/** Format a duration in ms with a unit that keeps 3 significant digits. */
export function formatMs(ms: number): string {
  if (!Number.isFinite(ms)) return String(ms);
  if (ms < 1) return `${(ms * 1000).toPrecision(3)} µs`;
  if (ms < 1000) return `${ms.toPrecision(3)} ms`;
  return `${(ms / 1000).toPrecision(3)} s`;
}

function formatCount(n: number): string {
  if (!Number.isFinite(n)) return String(n);
  return n >= 100 ? Math.round(n).toLocaleString("en-US") : n.toPrecision(3);
}

/** `a / b`, printed as e.g. `1.23×`. */
export function formatRatio(a: number, b: number): string {
  return `${(a / b).toFixed(2)}×`;
}

/** Print a section heading, so the output of `pnpm bench` reads as one report. */
export function heading(title: string): void {
  console.log(`\n## ${title}`);
}

/** Print one measured figure that is not a latency distribution (RSS, bytes on the wire, ...). */
export function printFigure(label: string, value: number | string, unit = ""): void {
  const shown = typeof value === "number" ? formatCount(value) : value;
  console.log(`  ${label.padEnd(48)} ${shown}${unit ? ` ${unit}` : ""}`);
}

/**
 * Print a table of figures and, for every row after the first, its median ratio to the first row
 * (the baseline).
 */
export function printTable(rows: readonly Figures[]): void {
  const width = Math.max(24, ...rows.map((r) => r.name.length + 2));
  console.log(
    `  ${"variant".padEnd(width)}${"median".padStart(11)}${"p99".padStart(11)}${"ops/s".padStart(11)}${"samples".padStart(9)}`,
  );
  for (const row of rows) {
    console.log(
      `  ${row.name.padEnd(width)}${formatMs(row.medianMs).padStart(11)}${formatMs(row.p99Ms).padStart(11)}${formatCount(row.opsPerSec).padStart(11)}${String(row.samples).padStart(9)}`,
    );
  }
  const [baseline, ...others] = rows;
  if (!baseline) return;
  for (const row of others) {
    console.log(
      `  ratio ${row.name} / ${baseline.name} (median): ${formatRatio(row.medianMs, baseline.medianMs)}`,
    );
  }
}

/**
 * Measure every variant in the same run and print the table with ratios to the first variant. The time
 * budget is split into rounds that alternate the variants' order, so a change in machine load during the
 * run hits every variant alike. Returns the figures so a bench can print derived numbers.
 */
export async function compare(
  title: string,
  variants: readonly Variant[],
  options: CompareOptions = {},
): Promise<Figures[]> {
  heading(title);
  const rounds = Math.max(1, options.rounds ?? 4);
  const time = (options.timeMs ?? defaultTime) / rounds;
  const samples = variants.map(() => [] as number[]);
  for (let round = 0; round < rounds; round++) {
    const order = variants.map((_, i) => i);
    if (round % 2 === 1) order.reverse();
    for (const index of order) {
      const variant = variants[index] as Variant;
      const bench = new Bench({
        time,
        iterations: Math.max(1, Math.ceil((options.iterations ?? 10) / rounds)),
        warmupTime: round === 0 ? (options.warmupMs ?? 200) : 20,
        retainSamples: true,
        throws: true,
      });
      bench.add(variant.name, variant.fn);
      await bench.run();
      const result = bench.tasks[0]?.result;
      if (result?.state !== "completed" || !result.latency.samples) {
        throw new Error(`bench variant "${variant.name}" did not complete (state: ${result?.state})`);
      }
      samples[index]?.push(...result.latency.samples);
    }
  }
  const rows = variants.map((variant, i) => summarize(variant.name, samples[i] ?? []));
  printTable(rows);
  return rows;
}

/** The median of `values` (NaN when empty). */
export function median(values: readonly number[]): number {
  return percentile(
    [...values].sort((x, y) => x - y),
    50,
  );
}

/** What one variant measured in one round: any named figures (a latency, calls/s, CPU µs...). */
export type RoundFigures = Record<string, number>;

/** Per-round figures of a baseline and a candidate measured in alternating order (see `pairedRounds`). */
export interface PairedRounds {
  baseline: RoundFigures[];
  candidate: RoundFigures[];
}

/**
 * Paired A/B: `rounds` rounds, each measuring the baseline and the candidate once, the order alternating
 * from round to round, so a change of machine load lands on both sides of the pair alike. Compare them
 * with `pairedSummary` (medians, and the median of the per-round ratios).
 */
export async function pairedRounds(
  rounds: number,
  baseline: () => Promise<RoundFigures>,
  candidate: () => Promise<RoundFigures>,
): Promise<PairedRounds> {
  const out: PairedRounds = { baseline: [], candidate: [] };
  for (let round = 0; round < rounds; round++) {
    if (round % 2 === 0) {
      out.baseline.push(await baseline());
      out.candidate.push(await candidate());
    } else {
      out.candidate.push(await candidate());
      out.baseline.push(await baseline());
    }
  }
  return out;
}

/** One figure of a paired run: medians over rounds, and the per-round candidate ÷ baseline ratios. */
export interface PairedFigure {
  baseline: number;
  candidate: number;
  /** Median of the per-round ratios candidate ÷ baseline. */
  ratio: number;
  /** 25th and 75th percentile of the per-round ratios: how much the pairs disagree. */
  ratioLow: number;
  ratioHigh: number;
}

/** Summarise one named figure of a paired run (see `pairedRounds`). */
export function pairedSummary(run: PairedRounds, key: string): PairedFigure {
  const value = (figures: RoundFigures | undefined) => figures?.[key] ?? Number.NaN;
  const ratios = run.baseline
    .map((figures, i) => value(run.candidate[i]) / value(figures))
    .sort((x, y) => x - y);
  return {
    baseline: median(run.baseline.map(value)),
    candidate: median(run.candidate.map(value)),
    ratio: percentile(ratios, 50),
    ratioLow: percentile(ratios, 25),
    ratioHigh: percentile(ratios, 75),
  };
}
