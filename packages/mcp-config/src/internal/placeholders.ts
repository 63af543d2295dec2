// `${NAME}` and `${NAME:-default}` placeholders in command, args, cwd and url. `$${` is a literal `${`.

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** One piece of a placeholder string: literal text, or a variable reference. */
type Part = { text: string } | { variable: string; fallback: string | undefined };

function split(value: string): Part[] | string {
  const parts: Part[] = [];
  let literal = "";
  let i = 0;
  while (i < value.length) {
    if (value.startsWith("$${", i)) {
      literal += "${";
      i += 3;
      continue;
    }
    if (!value.startsWith("${", i)) {
      literal += value[i];
      i += 1;
      continue;
    }
    const end = value.indexOf("}", i + 2);
    if (end === -1) return `unclosed "\${" at character ${i + 1}; write $\${ for a literal "\${"`;
    const body = value.slice(i + 2, end);
    const sep = body.indexOf(":-");
    const variable = sep === -1 ? body : body.slice(0, sep);
    if (!NAME.test(variable)) {
      return `"\${${body}}" is not a valid placeholder: expected \${NAME} or \${NAME:-default} with NAME of letters, digits and '_'`;
    }
    if (literal) parts.push({ text: literal });
    literal = "";
    parts.push({ variable, fallback: sep === -1 ? undefined : body.slice(sep + 2) });
    i = end + 1;
  }
  if (literal) parts.push({ text: literal });
  return parts;
}

/** A message describing what is malformed in `value`, or undefined when it is well-formed. */
export function placeholderProblem(value: string): string | undefined {
  const parts = split(value);
  return typeof parts === "string" ? parts : undefined;
}

/** Variable names referenced by `value` (in order, without duplicates). */
export function placeholderNames(value: string): string[] {
  const parts = split(value);
  if (typeof parts === "string") return [];
  const names = parts.flatMap((p) => ("variable" in p ? [p.variable] : []));
  return [...new Set(names)];
}

/**
 * Expand every placeholder with `lookup`. Returns the expanded string, or `{ missing }` naming the
 * first variable that is unset and has no default. Assumes `value` is well-formed (validated at parse).
 */
export function expandPlaceholders(
  value: string,
  lookup: (name: string) => string | undefined,
): string | { missing: string } {
  const parts = split(value);
  if (typeof parts === "string") return { missing: "" };
  let out = "";
  for (const part of parts) {
    if ("text" in part) {
      out += part.text;
      continue;
    }
    const found = lookup(part.variable);
    if (found !== undefined && found !== "") out += found;
    else if (part.fallback !== undefined) out += part.fallback;
    else if (found !== undefined) out += found;
    else return { missing: part.variable };
  }
  return out;
}
