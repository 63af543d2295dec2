// Sizes of tool responses: what a text costs inside a JSON-RPC message, and how to print sizes.

/** Printable ASCII without `"` and `\\`: JSON copies it as is, one byte per character. */
const PLAIN_ASCII = /^[ !#-[\]-~]*$/;

/** UTF-8 bytes a string takes once JSON-encoded inside a message (without the surrounding quotes). */
export function jsonSize(text: string): number {
  if (PLAIN_ASCII.test(text)) return text.length;
  return Buffer.byteLength(JSON.stringify(text), "utf8") - 2;
}

/** A running total of a response's JSON size against a limit. */
export class ResponseBudget {
  used = 0;
  /** @param limit the most JSON-encoded bytes the text may take */
  constructor(readonly limit: number) {}

  /** Bytes left. */
  get remaining(): number {
    return Math.max(0, this.limit - this.used);
  }

  /** Add `text` if it fits with `reserve` bytes to spare; returns whether it was added. */
  tryAdd(text: string, reserve = 0): boolean {
    const size = jsonSize(text);
    if (this.used + size + reserve > this.limit) return false;
    this.used += size;
    return true;
  }
}

/** The reference server's size format: `0 B`, `512 B`, `1.50 KB`, `2.00 MB` (binary units). */
export function formatSize(bytes: number): string {
  const units = ["B", "KB", "MB", "GB", "TB"];
  if (bytes <= 0) return "0 B";
  const i = Math.floor(Math.log(bytes) / Math.log(1024));
  if (i <= 0) return `${bytes} ${units[0]}`;
  const unit = Math.min(i, units.length - 1);
  return `${(bytes / 1024 ** unit).toFixed(2)} ${units[unit]}`;
}

/** A limit for messages: `1 MiB`, `512 KiB`, `800 bytes`. */
export function formatLimit(bytes: number): string {
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes.toLocaleString("en-US")} bytes`;
}

/** `12,345`. */
export const formatCount = (n: number): string => n.toLocaleString("en-US");
