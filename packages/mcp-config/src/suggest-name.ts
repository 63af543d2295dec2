/**
 * Edit distance between two strings (insertions, deletions, substitutions), stopping early once it is
 * certain to exceed `limit`.
 */
function editDistance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0] ?? 0;
    row[0] = i;
    let best = row[0];
    for (let j = 1; j <= b.length; j++) {
      const current = row[j] ?? 0;
      row[j] = Math.min(current + 1, (row[j - 1] ?? 0) + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = current;
      if ((row[j] ?? 0) < best) best = row[j] ?? 0;
    }
    if (best > limit) return limit + 1;
  }
  return row[b.length] ?? 0;
}

/**
 * The candidate closest to `name` for a "did you mean" hint: the one at the smallest edit distance,
 * compared case-insensitively, when that distance is at most 2 (at most 1 for names of 4 characters or
 * fewer). Undefined when nothing is that close, or when `name` is itself a candidate.
 */
export function suggestName(name: string, candidates: Iterable<string>): string | undefined {
  if (typeof name !== "string" || name.length === 0 || name.length > 256) return undefined;
  const wanted = name.toLowerCase();
  const limit = name.length <= 4 ? 1 : 2;
  let best: string | undefined;
  let bestDistance = limit + 1;
  for (const candidate of candidates) {
    if (typeof candidate !== "string") continue;
    if (candidate === name) return undefined;
    const distance = editDistance(wanted, candidate.toLowerCase(), limit);
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

/** ` (did you mean "x"?)` when `suggestName` finds one, else "". */
export function didYouMean(name: string, candidates: Iterable<string>): string {
  const suggestion = suggestName(name, candidates);
  return suggestion === undefined ? "" : ` (did you mean "${suggestion}"?)`;
}
