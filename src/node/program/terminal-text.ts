/**
 * What the CLI prints is text, never terminal controls. Rows, exports and files come from
 * elsewhere (issue 36): a path, tool name or model id holding ESC, an OSC title or hyperlink, BEL
 * or a C1 control would clear the screen, retitle the terminal or plant a link when printed. So
 * every write of the CLI passes through `visible` (screenIo, in `run`): C0 controls but tab and
 * newline, DEL, C1 (0x80–0x9f), a carriage return not ending a line, and the bidirectional
 * overrides and isolates (which reorder what is shown: "Trojan Source") are printed as escapes —
 * `\x1b`, `\u202e` — that a terminal shows as they are. The CLI's own one control, rewriting the
 * import's progress line, is `status`, made here and nowhere else.
 */
import type { Io } from './io';

// Matching controls is this module's purpose.
const CONTROLS =
  // eslint-disable-next-line no-control-regex
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]|\r(?!\n)/g;
/** What JSON.stringify leaves raw in strings that a terminal may still act on. */
const JSON_RAW = /[\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

const hex = (char: string, digits: number) => char.charCodeAt(0).toString(16).padStart(digits, '0');

/** Text with every control shown as an escape (`\x1b`, `\x9b`, `\u202e`); tab and newline kept. */
export function visible(text: string): string {
  return text.replace(CONTROLS, (char) => (char.charCodeAt(0) <= 0xff ? `\\x${hex(char, 2)}` : `\\u${hex(char, 4)}`));
}

/** Every string in a value made visible: what a table lays out is what is printed, so widths hold. */
export function visibleDeep<T>(value: T): T {
  if (typeof value === 'string') return visible(value) as T;
  if (Array.isArray(value)) return value.map((v: unknown) => visibleDeep(v)) as T;
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, visibleDeep(v)])) as T;
  return value;
}

/**
 * A value as JSON for stdout: exactly JSON.stringify's document, with the characters it leaves
 * raw (DEL, C1, bidirectional controls) written as `\u` escapes — the same JSON value, bytes
 * that no terminal acts on, and nothing left for `visible` to change.
 */
export function jsonText(value: unknown): string {
  return `${JSON.stringify(value, null, 2).replace(JSON_RAW, (char) => `\\u${hex(char, 4)}`)}\n`;
}

/** The process's (or a test's) io with every write made visible, and the status line. */
export function screenIo(io: Io): Io {
  return {
    ...io,
    out: (text) => io.out(visible(text)),
    err: (text) => io.err(visible(text)),
    status: (line) => io.err(`\r\u001b[2K${line === null ? '' : visible(line)}`),
  };
}
