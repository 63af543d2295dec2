// Whether a path stays inside a folder: the one check every folder guard of the app is built on.
import { isAbsolute, relative, sep } from "node:path";

/** Whether `target` is `base` or inside it (both absolute, normalized). */
export function isInside(base: string, target: string): boolean {
  const rel = relative(base, target);
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}
