/** Words a POSIX shell reads as themselves, unquoted (no globbing, expansion, comment or assignment). */
const PLAIN_WORD = /^[A-Za-z0-9_@%+=:,./-]+$/;

/**
 * `word` as a POSIX shell reads it back unchanged: as is when it holds only plain characters, else in
 * single quotes (inside which nothing is special), each `'` written as `'\''`. The empty word is `''`.
 * A command word containing `=` is quoted too, so the shell does not take it for an assignment.
 */
export function shellQuote(word: string, commandWord = false): string {
  if (PLAIN_WORD.test(word) && !(commandWord && word.includes("="))) return word;
  return `'${word.replace(/'/g, "'\\''")}'`;
}

/** A command and its arguments as one line to paste into a POSIX shell (see `shellQuote`). */
export function shellCommandLine(command: string, args: readonly string[]): string {
  return [shellQuote(command, true), ...args.map((arg) => shellQuote(arg))].join(" ");
}
