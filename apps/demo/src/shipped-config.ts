import { fileURLToPath } from "node:url";
export const SHIPPED_CONFIG = fileURLToPath(new URL("../config/mcp_servers.yaml", import.meta.url));
