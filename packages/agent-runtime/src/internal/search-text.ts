// Text analysis for tool search: identifier splitting, a light English stemmer and stop words. In-process,
// no dependencies; the same analysis runs on tool definitions and on queries, so both sides agree.

/** Longest text analysed per field (a server may send a huge description; the rest is not indexed). */
export const MAX_ANALYSED_CHARS = 4000;

/**
 * Words that carry no meaning for finding a tool. Question words and generic verbs are NOT here when they
 * point at a concept ("who" → people, "when" → time): the vocabulary maps them before they are dropped.
 */
const STOP_WORDS = new Set(
  (
    "a about above after again all also am an and any are as at be been before being both but by can " +
    "could did do does doing for from had has have having he her here hers him his i if in into is it " +
    "its itself just let lets me might more most my myself no nor not now of off on once only or other " +
    "our ours out over own please same she should so some such than that the their them then there these " +
    "they this those through to too under until up us very was we were what which while will with would " +
    "you your yours yourself right tell give want need like s t d ll re ve m"
  ).split(" "),
);

/** Whether a (lowercase, unstemmed) word is a stop word. */
export function isStopWord(word: string): boolean {
  return STOP_WORDS.has(word);
}

/**
 * The words of a text, lowercase, with identifiers split: `list_directory`, `list-directory`,
 * `listDirectory` and `ListDirectory` all give `list`, `directory`; `HTMLParser` gives `html`, `parser`.
 * Letters and digits of any script count as word characters.
 */
export function words(text: string): string[] {
  const bounded = text.length > MAX_ANALYSED_CHARS ? text.slice(0, MAX_ANALYSED_CHARS) : text;
  const split = bounded
    .normalize("NFKC")
    .replace(/([\p{Ll}\p{N}])(\p{Lu})/gu, "$1 $2")
    .replace(/(\p{Lu}+)(\p{Lu}\p{Ll})/gu, "$1 $2")
    .toLowerCase();
  return split.split(/[^\p{L}\p{N}]+/u).filter((w) => w.length > 0);
}

const VOWEL = /[aeiouy]/;

function hasVowel(stem: string): boolean {
  return VOWEL.test(stem);
}

function undouble(stem: string): string {
  // running → run, dropped → drop; but not "ll", "ss", "zz" (installed → install, passed → pass).
  const last = stem.at(-1);
  if (stem.length > 3 && last === stem.at(-2) && last !== undefined && !"lsz".includes(last)) {
    return stem.slice(0, -1);
  }
  return stem;
}

/**
 * A light English stemmer: enough to make `files`/`file`, `created`/`create`/`creating`/`creation`,
 * `entries`/`entry`, `matches`/`match`, `compression`/`compress` meet. Words of three letters or fewer,
 * and words with digits, are kept as they are. Deterministic and dependency-free; not a full Porter
 * stemmer (it need only make a query and a tool description agree).
 */
export function stem(word: string): string {
  if (word.length <= 3 || /\d/.test(word)) return word;
  let w = word;
  if (w.endsWith("ies") && w.length > 4) w = `${w.slice(0, -3)}y`;
  else if (w.endsWith("sses")) w = w.slice(0, -2);
  else if (/(?:ch|sh|x|z)es$/.test(w)) w = w.slice(0, -2);
  else if (w.endsWith("s") && !/(?:ss|us|is)$/.test(w)) w = w.slice(0, -1);
  if (w.endsWith("ing") && w.length > 5 && hasVowel(w.slice(0, -3))) w = undouble(w.slice(0, -3));
  else if (w.endsWith("ed") && w.length > 4 && hasVowel(w.slice(0, -2))) w = undouble(w.slice(0, -2));
  if (w.endsWith("ation") && w.length > 7) w = w.slice(0, -3);
  else if (w.endsWith("sion") && w.length > 6) w = w.slice(0, -3);
  else if (w.endsWith("ly") && w.length > 5) w = w.slice(0, -2);
  if (w.endsWith("y") && w.length > 3 && !/[aeiou]y$/.test(w)) w = `${w.slice(0, -1)}i`;
  if (w.endsWith("e") && w.length > 3) w = w.slice(0, -1);
  return w;
}
