import type { McpServerOptions } from "@modelcontextprotocol/server";

/**
 * What every first-party server is built with. Their tool lists never change while they run, so they
 * say so (`listChanged: false`): a 2026-07-28 client then opens no `subscriptions/listen` stream that
 * would only ever be held open, and a 2025 client expects no `notifications/tools/list_changed`.
 */
export const SERVER_OPTIONS: McpServerOptions = { capabilities: { tools: { listChanged: false } } };
