/**
 * Reads what `opencode export SESSION_ID` printed, streaming: one session's `info` and one
 * message at a time, so a 200 MB export never sits in memory whole (stream-json's tokenizer
 * and assembler; docs/benchmarks.md). A file may hold several exports one after another
 * (`for id in …; do opencode export $id; done > all.json`); gzip is read as such; a BOM and
 * the "Exporting session: …" line older OpenCode versions printed before the JSON are skipped.
 *
 * Whatever is not an export is refused with one sentence naming the file and where: not JSON,
 * JSON of another shape, a file that ends in the middle (truncated). Message and part contents
 * are never judged here: unknown part types from another OpenCode version are kept as they are.
 */
import { createReadStream, openSync, readSync, closeSync } from 'node:fs';
import { createGunzip } from 'node:zlib';
import Assembler from 'stream-json/assembler.js';
import { jsonParser, type Token } from 'stream-json/core/parser.js';
import { getManyValues, isMany, none } from 'stream-chain/defs.js';
import { isObject } from '../../../shared/opencode/format';
import type { ExportedMessage, SessionExport } from '../../agent/opencode/session-export';
import { ExportInputError } from '../../export-input-error';
import { unreadable } from '../input-file';

/** The input is not an OpenCode export (or not all of one): the CLI answers exit 2. */
export { ExportInputError };

export type ExportEvent =
  | { kind: 'info'; index: number; info: SessionExport['info'] }
  | { kind: 'message'; index: number; position: number; message: ExportedMessage }
  /** loneSurrogate: where the export has a text with a lone UTF-16 surrogate (PostgreSQL refuses it). */
  | { kind: 'end'; index: number; messages: number; loneSurrogate: string | null };

export interface ReadOptions {
  /** For people: the file's name in every error. */
  name: string;
  /** Called as the file is read: bytes read so far (of the file as stored, compressed or not). */
  progress?: (bytesRead: number) => void;
}

const GZIP = [0x1f, 0x8b];
/** A UTF-16 surrogate not in a pair: with the u flag, a pair is one code point and never matches. */
const LONE_SURROGATE = /\p{Cs}/u;
/** Far deeper than OpenCode's shapes (a tool's input inside a part inside a message) ever nest. */
export const MAX_NESTING = 1000;
const LEADING_LINE = /^Exporting session[^\n]*\n/;
/** How much of the start is held back to find the whole "Exporting session" line. */
const LEADING_MAX = 4096;

/** Whether a file starts as gzip does. */
export function isGzip(path: string): boolean {
  const fd = openSync(path, 'r');
  try {
    const head = Buffer.alloc(2);
    return readSync(fd, head, 0, 2, 0) === 2 && head[0] === GZIP[0] && head[1] === GZIP[1];
  } finally {
    closeSync(fd);
  }
}

/**
 * The text of a file, decoded as UTF-8 (gunzipped first when it is gzip), chunk by chunk. A byte
 * that is not UTF-8 refuses the file: replaced silently, the import would store other text than
 * the session's.
 */
async function* textOf(path: string, options: ReadOptions): AsyncGenerator<string> {
  // Opened and judged before the stream is made: a stream's open error with no listener yet would
  // be thrown out of the process (a missing file was a stack trace).
  let gzip: boolean;
  try {
    gzip = isGzip(path);
  } catch (error) {
    throw new ExportInputError(unreadable(options.name, error));
  }
  const file = createReadStream(path, { highWaterMark: 1 << 20 });
  const source = gzip ? file.pipe(createGunzip()) : file;
  file.on('error', (error) => source.destroy(error));
  const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  let bytes = 0;
  const decode = (chunk?: Buffer) => {
    try {
      return chunk ? decoder.decode(chunk, { stream: true }) : decoder.decode();
    } catch {
      throw new ExportInputError(
        `${options.name} is not UTF-8 text: a byte that UTF-8 does not allow within its first ${(bytes + (chunk?.length ?? 0)).toLocaleString('en-US')} bytes`,
      );
    }
  };
  try {
    // Pulled a chunk at a time (no 'data' listener: a flowing stream would read ahead of a slow
    // writer and hold the whole file); the bytes read so far are the file stream's own count.
    for await (const chunk of source) {
      options.progress?.(file.bytesRead);
      yield decode(chunk as Buffer);
      bytes += (chunk as Buffer).length;
    }
  } catch (error) {
    if (error instanceof ExportInputError) throw error;
    const why = error instanceof Error ? error.message : String(error);
    throw new ExportInputError(
      /unexpected end/i.test(why)
        ? `${options.name} is gzip that ends too early (truncated?)`
        : unreadable(options.name, error),
    );
  }
  const rest = decode();
  if (rest) yield rest;
}

/** Text without a BOM and the line OpenCode printed before the JSON. */
async function* withoutPreamble(chunks: AsyncGenerator<string>): AsyncGenerator<string> {
  let head = '';
  let started = false;
  for await (const chunk of chunks) {
    if (started) {
      yield chunk;
      continue;
    }
    head += chunk;
    if (head.length < LEADING_MAX && !head.includes('\n') && !/^\s*[[{]/.test(head.replace(/^\uFEFF/, ''))) continue;
    started = true;
    yield head.replace(/^\uFEFF/, '').replace(LEADING_LINE, '');
  }
  if (!started && head) yield head.replace(/^\uFEFF/, '').replace(LEADING_LINE, '');
}

const kindOf = (token: Token): string =>
  token.name === 'startArray'
    ? 'a list'
    : token.name === 'stringValue'
      ? 'a string'
      : token.name === 'numberValue'
        ? 'a number'
        : token.name === 'nullValue'
          ? 'null'
          : 'true or false';

/** Where a file's tokens are as they are read: between exports, inside one, inside its messages. */
class ExportTokens {
  index = -1;
  /** 0 between exports, 1 inside one, 2 inside its messages. */
  private depth = 0;
  private key: string | null = null;
  private skipping = 0;
  private assembling: { asm: Assembler; what: 'info' | 'message' } | null = null;
  private info: SessionExport['info'] | null = null;
  private position = 0;
  private sawMessages = false;
  private nesting = 0;
  /** Where the first text with a lone UTF-16 surrogate is (JSON's `\\ud800` escape alone), if any. */
  private lone: string | null = null;
  /** The events made since they were last taken. */
  readonly out: ExportEvent[] = [];

  constructor(private readonly notExport: (why: string) => ExportInputError) {}

  /** Whether the file stopped in the middle of an export. */
  get midway(): boolean {
    return this.depth > 0 || this.assembling !== null || this.skipping > 0;
  }

  consume(token: Token): void {
    this.watch(token);
    if (this.assembling) this.assemble(this.assembling, token);
    else if (this.skipping > 0) this.skip(token);
    else if (this.depth === 0) this.begin(token);
    else if (this.depth === 1) this.inExport(token);
    else this.inMessages(token);
  }

  /** Every token, whatever it belongs to: how deep it nests, and texts with a lone surrogate. */
  private watch(token: Token): void {
    if (token.name === 'startObject' || token.name === 'startArray') {
      // Deeper than any export nests: every later step (JSON.stringify, the database's own JSON
      // parser) would recurse that deep, and stacks end.
      if (++this.nesting > MAX_NESTING)
        throw this.notExport(
          `${this.assembling?.what === 'message' ? `message ${this.position + 1}` : 'it'} nests deeper than ${MAX_NESTING} levels`,
        );
    } else if (token.name === 'endObject' || token.name === 'endArray') this.nesting--;
    else if (
      (token.name === 'stringValue' || token.name === 'keyValue') &&
      !this.lone &&
      LONE_SURROGATE.test(token.value)
    )
      this.lone = `export ${this.index + 1}, ${this.assembling?.what === 'message' ? `message ${this.position + 1}` : 'its info'}`;
  }

  /** An export's info or one of its messages, assembled whole, then checked. */
  private assemble(assembling: { asm: Assembler; what: 'info' | 'message' }, token: Token): void {
    assembling.asm.consume(token);
    if (!assembling.asm.done) return;
    const value = assembling.asm.current;
    if (assembling.what === 'info') {
      if (!isObject(value) || typeof value.id !== 'string' || value.id === '')
        throw this.notExport(`export ${this.index + 1} has no session id (info.id)`);
      this.info = value as SessionExport['info'];
      this.out.push({ kind: 'info', index: this.index, info: this.info });
    } else {
      const message = checkMessage(value, this.position, this.info, this.notExport);
      this.out.push({ kind: 'message', index: this.index, position: this.position, message });
      this.position++;
    }
    this.assembling = null;
  }

  /** A value under a key an export does not have: passed over whole. */
  private skip(token: Token): void {
    if (token.name === 'startObject' || token.name === 'startArray') this.skipping++;
    else if (token.name === 'endObject' || token.name === 'endArray') this.skipping--;
  }

  /** Between exports: the next one starts. */
  private begin(token: Token): void {
    if (token.name !== 'startObject')
      throw this.notExport(`it holds ${kindOf(token)}, not an object with info and messages`);
    this.index++;
    this.depth = 1;
    this.info = null;
    this.position = 0;
    this.sawMessages = false;
  }

  /** Inside an export: its keys, its info, its messages list, its end. */
  private inExport(token: Token): void {
    if (token.name === 'keyValue') {
      this.key = token.value;
      return;
    }
    if (token.name === 'endObject') {
      if (!this.info) throw this.notExport(`export ${this.index + 1} has no info object`);
      if (!this.sawMessages) throw this.notExport(`export ${this.index + 1} has no messages list`);
      this.out.push({ kind: 'end', index: this.index, messages: this.position, loneSurrogate: this.lone });
      this.lone = null;
      this.depth = 0;
      return;
    }
    if (this.key === 'info') {
      if (token.name !== 'startObject') throw this.notExport(`its info is ${kindOf(token)}, not an object`);
      this.startAssembling('info', token);
    } else if (this.key === 'messages') {
      if (token.name !== 'startArray') throw this.notExport(`its messages are ${kindOf(token)}, not a list`);
      this.sawMessages = true;
      this.depth = 2;
    } else if (token.name === 'startObject' || token.name === 'startArray') this.skipping = 1;
  }

  /** Inside the messages list: each message, then the list's end. */
  private inMessages(token: Token): void {
    if (token.name === 'endArray') {
      this.depth = 1;
      return;
    }
    if (token.name !== 'startObject')
      throw this.notExport(`message ${this.position + 1} is ${kindOf(token)}, not an object`);
    this.startAssembling('message', token);
  }

  private startAssembling(what: 'info' | 'message', token: Token): void {
    this.assembling = { asm: new Assembler(), what };
    this.assembling.asm.consume(token);
  }
}

/**
 * The exports of a file, as events: each export's info (once), its messages in order, its end.
 * Throws ExportInputError for anything that is not a whole export.
 */
export async function* readExports(path: string, options: ReadOptions): AsyncGenerator<ExportEvent> {
  const { name } = options;
  const tokens = new ExportTokens((why) => new ExportInputError(`${name} is not an OpenCode session export: ${why}`));
  const parser = jsonParser({ jsonStreaming: true, streamValues: false });
  let chars = 0;
  const feed = (result: unknown) => {
    if (isMany(result)) for (const token of getManyValues(result) as Token[]) tokens.consume(token);
  };
  const parseError = (error: unknown): never => {
    if (error instanceof ExportInputError) throw error;
    const why = error instanceof Error ? error.message.replace(/^Parser (cannot parse input: |has )/, '') : '';
    if (tokens.index < 0 && !tokens.midway)
      throw new ExportInputError(`${name} is not JSON (${why || 'unexpected text'})`);
    throw new ExportInputError(`${name} is not valid JSON after ${chars.toLocaleString('en-US')} characters: ${why}`);
  };
  const truncated = () => new ExportInputError(`${name} ends in the middle of an export (truncated?)`);

  for await (const text of withoutPreamble(textOf(path, options))) {
    try {
      feed(parser(text));
    } catch (error) {
      parseError(error);
    }
    chars += text.length;
    yield* tokens.out.splice(0);
  }
  try {
    feed(parser(none as unknown as string));
  } catch (error) {
    if (tokens.midway) throw truncated();
    parseError(error);
  }
  yield* tokens.out.splice(0);
  if (tokens.midway) throw truncated();
  if (tokens.index < 0) throw new ExportInputError(`${name} is empty: no export in it`);
}

function checkMessage(
  value: unknown,
  position: number,
  info: SessionExport['info'] | null,
  notExport: (why: string) => ExportInputError,
): ExportedMessage {
  const where = `message ${position + 1}`;
  if (!isObject(value) || !isObject(value.info) || typeof value.info.id !== 'string' || value.info.id === '')
    throw notExport(`${where} has no info.id`);
  if (!Array.isArray(value.parts)) throw notExport(`${where} (${value.info.id}) has no parts list`);
  const session = value.info.sessionID;
  if (info && typeof session === 'string' && session !== info.id)
    throw notExport(`${where} (${value.info.id}) belongs to session ${session}, not to ${info.id}`);
  for (const [k, part] of value.parts.entries()) {
    if (!isObject(part)) throw notExport(`part ${k + 1} of ${where} (${value.info.id}) is not an object`);
  }
  return value as unknown as ExportedMessage;
}
