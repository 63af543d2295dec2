// `pnpm bench`: what validation, positions and camelCase conversion cost on top of a bare YAML parse.
import { compare } from "@agentforge/bench";
import { parseMCPConfig } from "@agentforge/mcp-config";
import { parse } from "yaml";

const entries = Array.from({ length: 200 }, (_, i) =>
  i % 2 === 0
    ? `  - name: stdio-${i}\n    enabled: true\n    transport: stdio\n    command: \${NODE}\n    args: ["\${CONFIG_DIR}/server-${i}.js", "--flag"]\n    env: { ROOT: ROOT_${i} }\n`
    : `  - name: http-${i}\n    transport: http\n    url: https://example.invalid/${i}/mcp\n    auth: { type: bearer, credential_env_var: TOKEN_${i} }\n`,
);
const yamlText = `servers:\n${entries.join("")}permissions:\n  documentation: [stdio-0.*, http-1.get_*]\n`;
const jsonText = JSON.stringify({
  mcpServers: Object.fromEntries(
    Array.from({ length: 200 }, (_, i) => [
      `server-${i}`,
      { command: "npx", args: ["-y", `pkg-${i}`], env: { API_KEY: `v${i}` } },
    ]),
  ),
});

await compare("mcp-config: a 200-server mcp_servers.yaml", [
  { name: "yaml.parse (no validation)", fn: () => parse(yamlText) },
  { name: "parseMCPConfig (validated)", fn: () => parseMCPConfig(yamlText) },
]);

await compare("mcp-config: a 200-server mcpServers JSON import", [
  { name: "JSON.parse (no validation)", fn: () => JSON.parse(jsonText) },
  { name: "parseMCPConfig (import)", fn: () => parseMCPConfig(jsonText) },
]);
