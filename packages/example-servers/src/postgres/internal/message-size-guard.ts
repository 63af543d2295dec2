// Bound what one server message can cost: pg buffers a whole DataRow before handing it over, so a single
// 1 GB value would be 1 GB in this process. The guard reads only the 5-byte message headers as bytes
// stream in (after TLS, if any) and drops the connection as soon as a header announces a message larger
// than the limit, before its body is buffered.
import type { Duplex } from "node:stream";
import pg from "pg";

/** The error a guarded connection fails with when one message is over the limit. */
export class MessageTooLargeError extends Error {
  override readonly name = "MessageTooLargeError";
  constructor(
    readonly bytes: number,
    readonly limit: number,
  ) {
    super(`one row of the result is ${bytes} bytes, over the ${limit}-byte limit of a reply`);
  }
}

/** Watch a stream of backend messages; call `onTooLarge` once if one announces more than `limit` bytes. */
export function watchMessageSizes(
  stream: Duplex,
  limit: number,
  onTooLarge: (error: MessageTooLargeError) => void,
): void {
  const header = Buffer.alloc(5);
  let headerFilled = 0;
  let bodyLeft = 0;
  let tripped = false;
  stream.on("data", (chunk: Buffer) => {
    if (tripped) return;
    let offset = 0;
    while (offset < chunk.length) {
      if (bodyLeft > 0) {
        const skip = Math.min(bodyLeft, chunk.length - offset);
        bodyLeft -= skip;
        offset += skip;
        continue;
      }
      const take = Math.min(5 - headerFilled, chunk.length - offset);
      chunk.copy(header, headerFilled, offset, offset + take);
      headerFilled += take;
      offset += take;
      if (headerFilled < 5) return;
      headerFilled = 0;
      const length = header.readUInt32BE(1) - 4; // the length counts itself
      if (length > limit) {
        tripped = true;
        onTooLarge(new MessageTooLargeError(length, limit));
        return;
      }
      bodyLeft = length;
    }
  });
}

type ConnectionInternals = { attachListeners(stream: Duplex): void; stream: Duplex };

/** A pg.Client class whose connections fail with MessageTooLargeError instead of buffering a huge message. */
export function guardedClientClass(limit: number): typeof pg.Client {
  return class GuardedClient extends pg.Client {
    constructor(config?: string | pg.ClientConfig) {
      super(config);
      const connection = (this as unknown as { connection: ConnectionInternals }).connection;
      const attach = connection.attachListeners.bind(connection);
      connection.attachListeners = (stream: Duplex) => {
        watchMessageSizes(stream, limit, (error) => stream.destroy(error));
        attach(stream);
      };
    }
  };
}
