/**
 * Cap `text` at `maxChars` UTF-16 code units, never splitting a surrogate pair, and append
 * `... [N characters truncated]` with N the exact number of code units removed.
 */
export function truncateText(
  text: string,
  maxChars: number,
): { text: string; truncated: boolean; originalLength: number } {
  if (text.length <= maxChars) return { text, truncated: false, originalLength: text.length };
  let keep = Math.max(0, maxChars);
  const last = text.charCodeAt(keep - 1);
  if (keep > 0 && last >= 0xd800 && last <= 0xdbff) keep -= 1; // a high surrogate: keep the pair together
  const removed = text.length - keep;
  return {
    text: `${text.slice(0, keep)}... [${removed} characters truncated]`,
    truncated: true,
    originalLength: text.length,
  };
}
