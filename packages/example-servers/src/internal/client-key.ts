// Which "client" a connection counts against for the per-client session cap.

/**
 * The key a remote address counts under for the per-client session cap, or `undefined` for loopback
 * (every local process shares 127.0.0.1, so a per-address cap there would let one local program lock out
 * the others; loopback clients share the global cap instead). IPv4-mapped IPv6 counts as its IPv4
 * address; other IPv6 addresses count per /64 network, since one host usually holds a whole /64.
 */
export function clientKeyOf(address: string | undefined): string | undefined {
  if (!address) return "unknown";
  let bare = address.toLowerCase().replace(/%.*$/, "");
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/.exec(bare);
  if (mapped?.[1]) bare = mapped[1];
  if (/^127(?:\.\d{1,3}){3}$/.test(bare) || bare === "::1") return undefined;
  if (!bare.includes(":")) return bare;
  const groups = expandIpv6(bare);
  return groups ? `${groups.slice(0, 4).join(":")}::/64` : bare;
}

/** The eight 16-bit groups of an IPv6 address (without zone), or undefined if it is not one. */
function expandIpv6(address: string): string[] | undefined {
  const halves = address.split("::");
  if (halves.length > 2) return undefined;
  const part = (text: string | undefined) => (text ? text.split(":") : []);
  const head = part(halves[0]);
  const tail = part(halves[1]);
  const last = tail.length > 0 ? tail : head;
  const dotted = last.at(-1);
  if (dotted?.includes(".")) {
    const octets = dotted.split(".").map(Number);
    if (octets.length !== 4 || octets.some((o) => !(o >= 0 && o <= 255))) return undefined;
    const [a = 0, b = 0, c = 0, d = 0] = octets;
    last.splice(-1, 1, ((a << 8) | b).toString(16), ((c << 8) | d).toString(16));
  }
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return undefined;
  const groups = [...head, ...Array.from({ length: halves.length === 2 ? missing : 0 }, () => "0"), ...tail];
  if (!groups.every((g) => /^[0-9a-f]{1,4}$/.test(g))) return undefined;
  return groups.map((g) => g.replace(/^0+(?=.)/, ""));
}
