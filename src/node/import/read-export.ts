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
import { createReadStream, openSync, readSync, closeSync, statSync } from 'node:fs';
import { createGunzip } from 'node:zlib';
import Assembler from 'stream-json/assembler.js';
import { jsonParser, type Token } from 'stream-json/core/parser.js';
import { getManyValues, isMany, none } from 'stream-chain/defs.js';
import { isObject } from '../../shared/opencode/format';
import type { ExportedMessage, SessionExport } from '../agent/opencode/session-export';
import { usageError } from '../errors';
import { ExportInputError } from '../export-input-error';

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

/** Why a file could not be read, in words, naming it. */
/**
 * A missing file, a folder, a FIFO: said in one line before anything is read (a usage error, exit 2).
 * `name` is the file as the user gave it.
 */
export function checkFile(path: string, name: string): void {
  let stats;
  try {
    stats = statSync(path);
  } catch (error) {
    throw usageError(unreadable(name, error));
  }
  if (stats.isDirectory()) throw usageError(`${name} is a folder, not a file`);
  if (!stats.isFile()) throw usageError(`${name} is not a file`);
}

function unreadable(name: string, error: unknown): string {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  if (code === 'ENOENT') return `${name}: no such file`;
  if (code === 'EISDIR') return `${name} is a folder, not a file`;
  if (code === 'EACCES' || code === 'EPERM') return `${name} cannot be read: permission denied`;
  return `${name} could not be read: ${error instanceof Error ? error.message : String(error)}`;
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

/**
 * The exports of a file, as events: each export's info (once), its messages in order, its end.
 * Throws ExportInputError for anything that is not a whole export.
 */
export async function* readExports(path: string, options: ReadOptions): AsyncGenerator<ExportEvent> {
  const { name } = options;
  const notExport = (why: string) => new ExportInputError(`${name} is not an OpenCode session export: ${why}`);
  const parser = jsonParser({ jsonStreaming: true, streamValues: false });
  let index = -1;
  let depth = 0; // 0 between exports, 1 inside one, 2 inside its messages
  let key: string | null = null;
  let skipping = 0;
  let assembling: { asm: Assembler; what: 'info' | 'message' } | null = null;
  let info: SessionExport['info'] | null = null;
  let position = 0;
  let sawMessages = false;
  let chars = 0;
  let nesting = 0;
  /** Where the first text with a lone UTF-16 surrogate is (JSON's `\\ud800` escape alone), if any. */
  let lone: string | null = null;
  const out: ExportEvent[] = [];

  const consume = (token: Token) => {
    if (token.name === 'startObject' || token.name === 'startArray') {
      // Deeper than any export nests: every later step (JSON.stringify, the database's own JSON
      // parser) would recurse that deep, and stacks end.
      if (++nesting > MAX_NESTING)
        throw notExport(
          `${assembling?.what === 'message' ? `message ${position + 1}` : 'it'} nests deeper than ${MAX_NESTING} levels`,
        );
    } else if (token.name === 'endObject' || token.name === 'endArray') nesting--;
    else if ((token.name === 'stringValue' || token.name === 'keyValue') && !lone && LONE_SURROGATE.test(token.value))
      lone = `export ${index + 1}, ${assembling?.what === 'message' ? `message ${position + 1}` : 'its info'}`;
    if (assembling) {
      assembling.asm.consume(token);
      if (!assembling.asm.done) return;
      const value = assembling.asm.current;
      if (assembling.what === 'info') {
        if (!isObject(value) || typeof value.id !== 'string' || value.id === '')
          throw notExport(`export ${index + 1} has no session id (info.id)`);
        info = value as SessionExport['info'];
        out.push({ kind: 'info', index, info });
      } else {
        out.push({ kind: 'message', index, position, message: checkMessage(value, position, info, notExport) });
        position++;
      }
      assembling = null;
      return;
    }
    if (skipping > 0) {
      if (token.name === 'startObject' || token.name === 'startArray') skipping++;
      else if (token.name === 'endObject' || token.name === 'endArray') skipping--;
      return;
    }
    const starts = token.name === 'startObject' || token.name === 'startArray';
    if (depth === 0) {
      if (token.name !== 'startObject')
        throw notExport(`it holds ${kindOf(token)}, not an object with info and messages`);
      index++;
      depth = 1;
      info = null;
      position = 0;
      sawMessages = false;
      return;
    }
    if (depth === 1) {
      if (token.name === 'keyValue') {
        key = token.value;
        return;
      }
      if (token.name === 'endObject') {
        if (!info) throw notExport(`export ${index + 1} has no info object`);
        if (!sawMessages) throw notExport(`export ${index + 1} has no messages list`);
        out.push({ kind: 'end', index, messages: position, loneSurrogate: lone });
        lone = null;
        depth = 0;
        return;
      }
      if (key === 'info') {
        if (token.name !== 'startObject') throw notExport(`its info is ${kindOf(token)}, not an object`);
        assembling = { asm: new Assembler(), what: 'info' };
        assembling.asm.consume(token);
      } else if (key === 'messages') {
        if (token.name !== 'startArray') throw notExport(`its messages are ${kindOf(token)}, not a list`);
        sawMessages = true;
        depth = 2;
      } else if (starts) skipping = 1;
      return;
    }
    // depth 2: the messages list
    if (token.name === 'endArray') {
      depth = 1;
      return;
    }
    if (token.name !== 'startObject') throw notExport(`message ${position + 1} is ${kindOf(token)}, not an object`);
    assembling = { asm: new Assembler(), what: 'message' };
    assembling.asm.consume(token);
  };

  const feed = (result: unknown) => {
    if (isMany(result)) for (const token of getManyValues(result) as Token[]) consume(token);
  };
  const midway = () => depth > 0 || assembling !== null || skipping > 0;
  const parseError = (error: unknown): never => {
    if (error instanceof ExportInputError) throw error;
    const why = error instanceof Error ? error.message.replace(/^Parser (cannot parse input: |has )/, '') : '';
    if (index < 0 && !midway()) throw new ExportInputError(`${name} is not JSON (${why || 'unexpected text'})`);
    throw new ExportInputError(`${name} is not valid JSON after ${chars.toLocaleString('en-US')} characters: ${why}`);
  };

  for await (const text of withoutPreamble(textOf(path, options))) {
    try {
      feed(parser(text));
    } catch (error) {
      parseError(error);
    }
    chars += text.length;
    yield* out.splice(0);
  }
  try {
    feed(parser(none as unknown as string));
  } catch (error) {
    if (midway()) throw new ExportInputError(`${name} ends in the middle of an export (truncated?)`);
    parseError(error);
  }
  yield* out.splice(0);
  if (midway()) throw new ExportInputError(`${name} ends in the middle of an export (truncated?)`);
  if (index < 0) throw new ExportInputError(`${name} is empty: no export in it`);
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
