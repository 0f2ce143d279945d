/**
 * The CLI's report command compiled from a V8 code cache (issue 42.1). Node 20 has no compile
 * cache for modules (`module.enableCompileCache` is Node 22.1), and compiling the report path
 * was the largest part of its start that was not Node's own: the build also writes the CLI as one
 * CommonJS script (build/node/cli.cjs), which this compiles through `vm.Script` with the
 * `cachedData` an earlier successful run left beside it, so V8 deserializes the bytecode of every
 * function that run used instead of parsing and compiling them again.
 *
 * The cache is only ever an accelerator: missing, stale (another build, another Node), corrupt,
 * refused by V8, or unwritable (a read-only install), the script compiles from source and runs
 * the same. V8 checks a cache against its own version, its flags and the source's length, but not
 * the payload's integrity (no checksum outside debug builds), so the file carries the SHA-256 of
 * the script it was made from and of its payload: another build's cache, or a changed byte, is a
 * cache not used. It is
 * written owner-only and read only when owned by this user and private to them, since bytecode
 * is code: a cache another user could write would run as this one.
 */
import { isAscii } from 'node:buffer';
import { createHash } from 'node:crypto';
import { closeSync, fstatSync, openSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import { cachedDataVersionTag } from 'node:v8';
import { Script } from 'node:vm';

const MAGIC = 'investibook v8 code cache 2\n';
/** The script's SHA-256, which the build writes as its last comment (scripts/build-node.mjs). */
const DIGEST_COMMENT = /\/\/# investibook-digest=([0-9a-f]{64})\n?$/;
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
/** The header: the magic line, the script's digest, the payload's digest, a line each; then V8's payload. */
const HEADER_LENGTH = MAGIC.length + 2 * 65;

export interface CachedScript<T> {
  /** What the script's `module.exports` holds once it has run. */
  exports: T;
  /** Whether V8 took its code from the cache (false: compiled from source). */
  fromCache: boolean;
  /**
   * Writes the bytecode of every function compiled so far as the cache, unless it came from a
   * valid one: called after a successful run, so the cache holds what that command used.
   * Returns whether a cache was written; never throws.
   */
  save(): boolean;
}

/**
 * One cache per Node, architecture and V8 configuration beside the script: V8's version tag
 * hashes its version, its flags (those set at run time too) and the CPU's features, any of which
 * makes V8 refuse a cache; so runs with other flags (NODE_OPTIONS, the bench's variants) keep a
 * cache each instead of replacing one another's at every run.
 */
export const cachePath = (file: string) =>
  join(
    dirname(file),
    `${basename(file)}.node-${process.version}-${process.arch}-${cachedDataVersionTag().toString(16)}.cache`,
  );

/** CommonJS's module wrapper, as Node's loader puts it around a file (its lines, hence stack traces, unchanged). */
const wrap = (source: string) => `(function (exports, require, module, __filename, __dirname) { ${source}\n})`;

/** Owned by this user and by no one else's to write or read (POSIX; elsewhere the folder's permissions decide). */
function ownedPrivately(fd: number): boolean {
  if (process.getuid === undefined) return true;
  const { uid, mode } = fstatSync(fd);
  return uid === process.getuid() && (mode & 0o077) === 0;
}

/** V8's payload of a valid cache for this script, else undefined (missing, foreign, stale or corrupt). */
function readCache(path: string, scriptDigest: string): Buffer | undefined {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return undefined;
  }
  try {
    if (!ownedPrivately(fd)) return undefined;
    const data = readFileSync(fd);
    const header = data.toString('latin1', 0, HEADER_LENGTH).split('\n');
    if (data.length <= HEADER_LENGTH || `${header[0]}\n` !== MAGIC || header[1] !== scriptDigest) return undefined;
    const payload = data.subarray(HEADER_LENGTH);
    return header[2] === sha256(payload) ? payload : undefined;
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** Written whole or not at all: a concurrent reader sees the old cache or the new one. */
function writeCache(path: string, scriptDigest: string, payload: Buffer): boolean {
  const temporary = `${path}.${process.pid}.tmp`;
  try {
    const header = Buffer.from(`${MAGIC}${scriptDigest}\n${sha256(payload)}\n`, 'latin1');
    writeFileSync(temporary, Buffer.concat([header, payload]), { mode: 0o600, flag: 'wx' });
    renameSync(temporary, path);
    return true;
  } catch {
    try {
      rmSync(temporary, { force: true });
    } catch {
      // no folder to write in at all
    }
    return false;
  }
}

/**
 * Runs the CommonJS script at `file` as Node would load it (module, exports, require from its own
 * folder, __filename, __dirname; no `import()`), compiled from its code cache
 * when a valid one is there.
 */
export function runCached<T>(file: string, cache = cachePath(file)): CachedScript<T> {
  const bytes = readFileSync(file);
  // A one-byte string when the bundle is ASCII (esbuild escapes what it can): V8 then keeps it as
  // it is read, where UTF-8 decoding would copy it into two bytes a character.
  const source = isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8');
  // The build's digest of the script when it wrote one, else the script hashed here.
  const scriptDigest = DIGEST_COMMENT.exec(source.slice(-100))?.[1] ?? sha256(bytes);
  const cachedData = readCache(cache, scriptDigest);
  // No `importModuleDynamically`: the build leaves no `import()` in the script (a require each).
  const script = new Script(wrap(source), { filename: file, cachedData });
  const fromCache = cachedData !== undefined && !script.cachedDataRejected;
  const module = { exports: {} as T };
  const wrapper = script.runInThisContext() as (...args: unknown[]) => void;
  wrapper.call(module.exports, module.exports, createRequire(file), module, file, dirname(file));
  return {
    get exports() {
      return module.exports;
    },
    fromCache,
    save: () => !fromCache && writeCache(cache, scriptDigest, script.createCachedData()),
  };
}
