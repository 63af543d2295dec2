// The roster the app ships with (`apps/demo/config/mcp_servers.yaml`). This module runs from
// src/app/ (tests, tsx) or from a bundled chunk in dist/, so the file is looked for from both.
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const CANDIDATES = ["../config/mcp_servers.yaml", "../../config/mcp_servers.yaml"].map((path) =>
  fileURLToPath(new URL(path, import.meta.url)),
);

/** Absolute path of the shipped `mcp_servers.yaml`. */
export const SHIPPED_CONFIG: string =
  CANDIDATES.find((path) => existsSync(path)) ?? (CANDIDATES[0] as string);
