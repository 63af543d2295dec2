// Terminal control sequences and control characters, removed from what a model reads.
//
// - CSI: ESC [ (or the C1 byte 0x9B), parameter bytes 0x30–0x3F, intermediate bytes 0x20–0x2F, a final
//   byte 0x40–0x7E (colours, cursor moves, screen clears);
// - OSC, DCS, SOS, PM, APC strings: ESC ] / P / X / ^ / _ (or C1 0x9D / 0x90 / 0x98 / 0x9E / 0x9F) up to
//   BEL or ST (ESC \ or 0x9C) — window titles, hyperlinks, clipboard writes; an unterminated one loses only
//   its introducer (the text after it stays readable);
// - any other escape: ESC, intermediate bytes, one final byte 0x30–0x7E;
// - then every remaining C0 control (except \t and \n; \r\n becomes \n, a lone \r goes), DEL and C1 control.
// biome-ignore-start lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
const STRINGS =
  /(?:\u001b[\]PX^_]|[\u0090\u0098\u009d\u009e\u009f])[^\u0007\u001b\u009c]*(?:\u0007|\u001b\\|\u009c)/g;
const CSI = /(?:\u001b\[|\u009b)[\u0030-\u003f]*[\u0020-\u002f]*[\u0040-\u007e]?/g;
const OTHER_ESCAPES = /\u001b[\u0020-\u002f]*[\u0030-\u007e]?/g;
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;
const ANY_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;
// biome-ignore-end lint/suspicious/noControlCharactersInRegex: see above.

/**
 * `text` without terminal escape sequences (CSI, OSC, DCS/SOS/PM/APC, other ESC sequences) and without
 * C0/C1 control characters other than `\n` and `\t` (`\r\n` becomes `\n`). Text with none is returned
 * as is (one regular-expression test).
 */
export function cleanModelText(text: string): string {
  if (!ANY_CONTROL.test(text)) return text;
  return text
    .replace(STRINGS, "")
    .replace(CSI, "")
    .replace(OTHER_ESCAPES, "")
    .replace(/\r\n/g, "\n")
    .replace(CONTROLS, "");
}
