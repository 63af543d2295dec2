/**
 * The `subscriptions/listen` stream of one 2026-07-28 connection: opened when the server declares a
 * `listChanged` capability (tools, prompts or resources), it carries the same `notifications/…/list_changed`
 * a 2025 server sends unsolicited, which the SDK hands to the client's notification handlers — so list
 * changes reach `toolsChanged` (and the list cache) the same way in both eras. A stream that ends
 * unexpectedly is opened again (with backoff) while its connection stays current, and the tools are
 * fetched again then (a change may have been missed meanwhile); `close()` ends it.
 */
import { emitProcessWarning } from "@agentforge/mcp-config";
import type { McpSubscription, SubscriptionFilter } from "@modelcontextprotocol/client";
import type { Live } from "../connection/connection-types.js";
import { withDeadline } from "../connection/connection-utils.js";
import { backoffDelay } from "../shared/backoff.js";
import { errorLine } from "../shared/error-line.js";

/** Most times a stream that fails or ends is opened again on one connection (a reconnect starts over). */
export const MAX_LISTEN_REOPENS = 5;
/** How long `close()` waits for the stream's teardown (the connection is closed right after anyway). */
const CLOSE_WAIT_MS = 1000;

/** What the listener reports to its connection. */
export interface ListListenerHost {
  readonly serverName: string;
  /** How long the server may take to acknowledge the stream. */
  readonly timeoutMs: number;
  /** Whether `live` is still the connection in use. */
  isCurrent(live: Live): boolean;
  /** The stream was opened again after it ended: fetch the lists again. */
  reopened(): void;
  /** A line for the server's log. */
  log(line: string): void;
}

/** The filter to ask for: every list the server says it announces changes of (none: no stream). */
export function listenFilter(live: Live): SubscriptionFilter | undefined {
  if (live.client.getProtocolEra() !== "modern") return undefined;
  const capabilities = live.client.getServerCapabilities();
  const filter: SubscriptionFilter = {};
  if (capabilities?.tools?.listChanged) filter.toolsListChanged = true;
  if (capabilities?.prompts?.listChanged) filter.promptsListChanged = true;
  if (capabilities?.resources?.listChanged) filter.resourcesListChanged = true;
  return Object.keys(filter).length > 0 ? filter : undefined;
}

/** The listen stream of one server's current connection (at most one at a time). */
export class ListListener {
  private subscription: McpSubscription | undefined;
  private live: Live | undefined;
  private timer: NodeJS.Timeout | undefined;
  private reopens = 0;

  constructor(private readonly host: ListListenerHost) {}

  /** The acknowledged filter of the open stream (undefined: none open). */
  get honoured(): SubscriptionFilter | undefined {
    return this.subscription?.honoredFilter;
  }

  /**
   * Open the stream on `live` when its server offers one; resolves once the server acknowledged it (so
   * no change after the connection is ready goes unseen), or once it failed. Never rejects: a stream
   * that cannot be opened is retried with backoff, then said as a process warning.
   */
  start(live: Live): Promise<void> {
    this.stopTimer();
    this.live = live;
    this.reopens = 0;
    return this.open(live, false);
  }

  private async open(live: Live, again: boolean): Promise<void> {
    const filter = listenFilter(live);
    if (!filter || this.live !== live) return;
    let subscription: McpSubscription;
    try {
      subscription = await live.client.listen(filter, { timeout: this.host.timeoutMs });
    } catch (error) {
      if (this.live !== live || !this.host.isCurrent(live)) return;
      this.failed(live, error);
      return;
    }
    if (this.live !== live || !this.host.isCurrent(live)) {
      await this.end(subscription);
      return;
    }
    this.subscription = subscription;
    if (again) this.host.reopened();
    void subscription.closed.then((how) => this.ended(live, subscription, how));
  }

  private ended(live: Live, subscription: McpSubscription, how: "local" | "graceful" | "remote"): void {
    if (this.subscription === subscription) this.subscription = undefined;
    if (how === "local" || this.live !== live || !this.host.isCurrent(live)) return;
    this.host.log(`[client] subscriptions/listen stream ended (${how}); opening it again`);
    this.schedule(live);
  }

  private failed(live: Live, error: unknown): void {
    const reason = errorLine(error);
    this.host.log(`[client] subscriptions/listen failed: ${reason}`);
    if (this.reopens < MAX_LISTEN_REOPENS) {
      this.schedule(live);
      return;
    }
    emitProcessWarning(
      `MCP server "${this.host.serverName}" did not keep a subscriptions/listen stream open (${reason}); its list changes are seen only when the lists are fetched again (reconnect, health check, refresh).`,
      "AGENTFORGE_LIST_LISTEN_FAILED",
    );
  }

  private schedule(live: Live): void {
    this.reopens++;
    if (this.reopens > MAX_LISTEN_REOPENS) {
      this.failed(live, new Error(`the stream ended ${MAX_LISTEN_REOPENS} times in a row`));
      return;
    }
    this.stopTimer();
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.open(live, true);
    }, backoffDelay(this.reopens));
    this.timer.unref();
  }

  /** End the stream (the connection is closing or was lost). */
  async stop(): Promise<void> {
    this.stopTimer();
    this.live = undefined;
    const subscription = this.subscription;
    this.subscription = undefined;
    if (subscription) await this.end(subscription);
  }

  private async end(subscription: McpSubscription): Promise<void> {
    let late = false;
    try {
      await withDeadline(subscription.close(), CLOSE_WAIT_MS, () => {
        late = true;
      });
    } catch (error) {
      this.host.log(
        late
          ? "[client] subscriptions/listen teardown was not confirmed in time"
          : `[client] subscriptions/listen teardown failed: ${errorLine(error)}`,
      );
    }
  }

  private stopTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }
}
