// Command-line flags of the test servers, without loading the SDK (so start-up delays come first).

/** Parse `--flag value` / `--flag` arguments into an options object (see README.md for the list). */
export function parseArgs(argv) {
  const options = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (!arg.startsWith("--")) throw new Error(`test server: unexpected argument ${arg}`);
    const key = arg.slice(2).replace(/-([a-z])/g, (_, c) => c.toUpperCase());
    const next = argv[i + 1];
    if (next === undefined || next.startsWith("--")) options[key] = true;
    else {
      options[key] = next;
      i++;
    }
  }
  return options;
}
