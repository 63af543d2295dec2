// Runs may only document folders under the allowed base. Symlinks are resolved before the check, so a
// link inside the base that points outside it is refused.
import { realpathSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { isInside } from "../shared/is-inside.js";
import { ApiError } from "./api-error.js";

/**
 * The real path of `folder` (relative to `base`, or absolute), if it is a folder inside `base`
 * (`base` must be a real path). 403 FOLDER_NOT_ALLOWED outside it; 400 INVALID_BODY when missing.
 */
export function resolveAllowedFolder(base: string, folder: string, field = "folder"): string {
  const outside = () =>
    new ApiError(
      403,
      "FOLDER_NOT_ALLOWED",
      `folder "${folder}" is outside the allowed base ${base}; runs may only document folders under it`,
    );
  const lexical = resolve(base, folder);
  if (!isInside(base, lexical)) throw outside();
  let real: string;
  try {
    real = realpathSync(lexical);
  } catch {
    throw new ApiError(400, "INVALID_BODY", `folder "${folder}" does not exist under ${base}`, {
      issues: [{ path: field, message: "no such folder under the allowed base" }],
    });
  }
  if (!isInside(base, real)) throw outside();
  if (!statSync(real).isDirectory()) {
    throw new ApiError(400, "INVALID_BODY", `"${folder}" is not a folder`, {
      issues: [{ path: field, message: "expected a folder, got a file" }],
    });
  }
  return real;
}
