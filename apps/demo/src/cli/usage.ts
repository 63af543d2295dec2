// The usage texts of the CLI's commands. `agentforge --help` prints them all, so this module must stay
// cheap to load: plain strings only, no imports beyond constants from modules that import nothing heavy.
import { ALLOWED_HOSTS_VARIABLE, API_TOKEN_VARIABLE } from "../http/request-guard.js";

export const DOCS_USAGE = `Usage:
  agentforge docs <folder> [--out FILE] [--model offline|openai|anthropic|ollama] [--json]
                           [--max-rounds N] [--pause-after N] [--config FILE] [--state-dir DIR] [--otel]
  agentforge resume <run-id> [--out FILE] [--json] [--config FILE] [--state-dir DIR] [--otel]

The Documentation agent reads <folder> only through the filesystem MCP server (sandboxed to it) and
writes a Markdown overview to stdout or FILE. Without --model it uses OPENAI_API_KEY, ANTHROPIC_API_KEY
or OLLAMA_BASE_URL when set, else the offline strategy (real tool calls, no LLM).
Every run is saved after each tool round in <state-dir>/runs/<id>.json (default .agentforge); Ctrl-C or
--pause-after N stops it resumably. Every tool call is appended to <state-dir>/audit.jsonl.`;

export const MCP_USAGE = `Usage: agentforge mcp <verb> [options]
  list                 every server: display name, transport, enabled, last known health (never connects)
  inspect <name>       its config (variable names, never values) and live info (protocol, capabilities)
  tools [<name>]       tools, descriptions, and which agents the policy lets call each
    --agent A --search "what to do" [--limit N]
                       the tools a search of agent A's granted tools returns (best first, N ≤ 10),
                       and whether its runs search for their tools (tool_search: in permissions)
  test <name>          connect, list tools, report one latency figure
  health [<name>]      check every server in parallel (or one): status, latency, error, stderr tail
  refresh              reconnect and rediscover every enabled server
  reconnect <name>     close the server's connection (ending its process) and connect it again
  reload [--url URL]   check the config file; with --url, make that running agentforge serve re-read and
                       apply it (only changed servers restart; also SIGHUP or serve --watch-config)
  login <name>         log in to a server behind OAuth (auth type oauth, grant authorization_code); the
                       tokens are kept in <state-dir>/oauth/<name>.json (mode 0600)
  logout <name>        forget that login
Options (every verb):
  --config FILE        server roster (default: the shipped config/mcp_servers.yaml)
  --state-dir DIR      server logs, audit log, last known health (default .agentforge)
  --json               JSON on stdout (shapes: apps/demo/README.md "JSON shapes")
Exit codes: 0 ok, 1 something unhealthy or failed, 2 usage or config error.`;

export const SERVE_USAGE = `Usage: agentforge serve [--port 0] [--host 127.0.0.1] [--config FILE] [--state-dir DIR]
                        [--allowed-base DIR] [--no-check] [--max-runs 4] [--health-interval 30]
                        [--watch-config] [--database-url URL] [--run-lease-seconds 600]
                        [--queue-maintenance-seconds 30] [--confirmation-ttl 24h] [--otel]
  REST API under /api/v1 (MCP servers, docs runs with live events over SSE) and the /mcp dashboard.
  One MCP stack for the process, shared by every run; SIGHUP reloads the config file.
  --port N             port (default 0: any free port; the URL is printed on stderr when ready)
  --host HOST          interface (default 127.0.0.1); anything but loopback requires ${API_TOKEN_VARIABLE}
  --allowed-base DIR   runs may only document folders under DIR (default: the working directory)
  --no-check           do not health-check every server at start
  --max-runs N         runs going on at once (default 4); more answer 429 with Retry-After (with a
                       database: runs executing here plus runs this instance queued, not yet taken)
  --health-interval S  check every server every S seconds (default 30; 0: off)
  --watch-config       reload the config file when it changes
  --database-url URL   keep runs in PostgreSQL and run them as jobs of its queue, shared by every
                       instance on it (also DATABASE_URL; default: files in the state folder)
  --run-lease-seconds S  with a database: a run's lease (default 600); a dead instance's run is
                       recovered by another instance after it
  --queue-maintenance-seconds S  with a database: how often expired jobs and leases are looked for
                       (default 30)
  --confirmation-ttl D how long a run waits for a person to confirm a tool call (a \`confirm\` grant)
                       before it counts as denied (default 24h; 90s, 30m, 24h, 7d)
  --otel               export one OpenTelemetry span per tool call (OTLP/HTTP; OTEL_* variables)
  ${API_TOKEN_VARIABLE}   when set, every /api request needs "Authorization: Bearer <token>"
  ${ALLOWED_HOSTS_VARIABLE}   comma-separated Host header values accepted (behind a proxy)`;
