/**
 * Reads what the agent runtime always loads from a workspace folder: instruction files and the
 * enabled skills' frontmatter, plus the size of the candidate skill cache. Read-only, never
 * follows a symlink out of the root, reads at most `maxFileBytes` of any file, and turns every
 * oddity (missing folder, binary file, loop) into a warning.
 */
import { closeSync, lstatSync, openSync, readSync, readdirSync, realpathSync, statSync, type Stats } from 'node:fs';
import { isAbsolute, join, relative, sep } from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { Excluded } from '../../shared/wire';
import { ALL_SKILLS_DIR, SKILL_DIRS } from '../core/paths';
import type { WorkspaceSnapshot } from '../core/workspace-items';
import type { AgentConfig } from '../core/window';
import { isObject } from '../../shared/opencode/format';

export const DEFAULT_MAX_FILE_BYTES = 1024 * 1024;
const MAX_WALK_ENTRIES = 20_000;

export interface ReadOptions {
  maxFileBytes?: number;
}

export type SafeRead = { ok: true; text: string; size: number; mtimeMs: number } | { ok: false; reason: string };

export class WorkspaceReader {
  private readonly realRoot: string | null;
  readonly warnings: string[] = [];
  /** Every file read, for the snapshot digest. */
  readonly stamps: { path: string; size: number; mtimeMs: number }[] = [];
  private readonly maxFileBytes: number;

  constructor(
    readonly root: string,
    options: ReadOptions = {},
  ) {
    this.maxFileBytes = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
    this.realRoot = this.checkRoot();
  }

  private checkRoot(): string | null {
    let stats: Stats;
    try {
      stats = statSync(this.root);
    } catch {
      this.warnings.push(`workspace folder not found: ${this.root}; only the database was read`);
      return null;
    }
    if (!stats.isDirectory()) {
      this.warnings.push(`workspace root is not a folder: ${this.root}; only the database was read`);
      return null;
    }
    return realpathSync(this.root);
  }

  get available(): boolean {
    return this.realRoot !== null;
  }

  /** Reads a workspace-relative file as UTF-8 text, within the root and the size cap. */
  read(relPath: string): SafeRead {
    if (this.realRoot === null) return { ok: false, reason: 'workspace folder unavailable' };
    const absolute = join(this.root, relPath);
    let real: string;
    try {
      real = realpathSync(absolute);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return { ok: false, reason: 'not found' };
      if (code === 'ELOOP') return this.refuse(relPath, 'is a symlink loop; not read');
      return this.refuse(relPath, `cannot be resolved (${code ?? String(error)}); not read`);
    }
    if (real !== this.realRoot && !real.startsWith(this.realRoot + sep)) {
      return this.refuse(relPath, 'is a symlink that leaves the workspace; not read');
    }
    // Check the type before opening: opening a FIFO would block, a device could be endless.
    let stats: Stats;
    try {
      stats = statSync(real);
    } catch (error) {
      return this.refuse(relPath, `cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'}); not read`);
    }
    if (!stats.isFile()) return this.refuse(relPath, 'is not a regular file; not read');
    let fd: number;
    try {
      fd = openSync(real, 'r');
    } catch (error) {
      return this.refuse(relPath, `cannot be opened (${(error as NodeJS.ErrnoException).code ?? 'error'}); not read`);
    }
    try {
      const length = Math.min(stats.size, this.maxFileBytes);
      const buffer = Buffer.alloc(length);
      let offset = 0;
      while (offset < length) {
        const n = readSync(fd, buffer, offset, length - offset, offset);
        if (n === 0) break;
        offset += n;
      }
      const bytes = buffer.subarray(0, offset);
      if (bytes.subarray(0, 8192).includes(0)) return this.refuse(relPath, 'is a binary file; not counted');
      if (stats.size > this.maxFileBytes) {
        this.warnings.push(`${relPath}: ${stats.size} bytes; only the first ${this.maxFileBytes} were read`);
      }
      const text = new TextDecoder('utf-8').decode(bytes);
      if (text.includes('\uFFFD') && !bytes.includes(Buffer.from('\uFFFD'))) {
        this.warnings.push(`${relPath}: not valid UTF-8; invalid bytes were replaced`);
      }
      this.stamps.push({ path: relPath, size: stats.size, mtimeMs: stats.mtimeMs });
      return { ok: true, text, size: stats.size, mtimeMs: stats.mtimeMs };
    } catch (error) {
      return this.refuse(relPath, `cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
    } finally {
      closeSync(fd);
    }
  }

  /**
   * The size of a regular file inside the root (0 for a folder), or null (missing, something
   * else, a link out of the root). Never reads it; quiet: a shell command may name paths that
   * do not exist.
   */
  size(relPath: string): number | null {
    if (this.realRoot === null || relPath.startsWith('..')) return null;
    try {
      const real = realpathSync(join(this.root, relPath));
      if (real !== this.realRoot && !real.startsWith(this.realRoot + sep)) return null;
      const stats = statSync(real);
      return stats.isFile() ? stats.size : stats.isDirectory() ? 0 : null;
    } catch {
      return null;
    }
  }

  private refuse(relPath: string, why: string): SafeRead {
    this.warnings.push(`${relPath}: ${why}`);
    return { ok: false, reason: why };
  }

  /**
   * Entries of a workspace-relative folder; missing folders are empty. The folder itself is
   * opened as named (callers check a linked folder stays inside: `size`); entries are never
   * followed, only reported as links.
   */
  list(relDir: string): { name: string; isDirectory: boolean; isSymlink: boolean }[] {
    if (this.realRoot === null) return [];
    try {
      return readdirSync(join(this.root, relDir), { withFileTypes: true }).map((entry) => ({
        name: entry.name,
        isDirectory: entry.isDirectory(),
        isSymlink: entry.isSymbolicLink(),
      }));
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR')
        this.warnings.push(`${relDir}: cannot be listed (${code ?? 'error'})`);
      return [];
    }
  }

  /** Total size and count of the files under a folder, without reading them or following links. */
  measure(relDir: string): { bytes: number; files: number; truncated: boolean } {
    const out = { bytes: 0, files: 0, truncated: false };
    if (this.realRoot === null) return out;
    const stack = [join(this.root, relDir)];
    let seen = 0;
    while (stack.length > 0) {
      const dir = stack.pop()!;
      let entries;
      try {
        entries = readdirSync(dir, { withFileTypes: true });
      } catch {
        continue;
      }
      for (const entry of entries) {
        if (++seen > MAX_WALK_ENTRIES) {
          out.truncated = true;
          return out;
        }
        const path = join(dir, entry.name);
        if (entry.isDirectory()) stack.push(path);
        else if (entry.isFile()) {
          try {
            out.bytes += lstatSync(path).size;
            out.files++;
          } catch {
            // vanished while walking: not counted
          }
        }
      }
    }
    return out;
  }
}

/** What the runtime loads for every request, from the workspace folder. */
export function readWorkspace(reader: WorkspaceReader): WorkspaceSnapshot {
  const snapshot: WorkspaceSnapshot = {
    root: reader.root,
    instructions: [],
    skills: [],
    excluded: [],
    warnings: reader.warnings,
    stamps: reader.stamps,
  };
  if (!reader.available) return snapshot;

  const configs = readConfigs(reader);
  snapshot.agentConfig = agentConfig(configs);
  for (const path of instructionPaths(reader, configs)) {
    const file = reader.read(path);
    if (file.ok) snapshot.instructions.push({ path, text: file.text });
    else if (file.reason === 'not found' && path !== 'AGENTS.md') {
      reader.warnings.push(`${path}: listed in instructions but not found`);
    }
  }

  const seen = new Set<string>();
  for (const dir of SKILL_DIRS) {
    for (const entry of reader.list(dir)) {
      // A linked skill folder is followed only if it stays inside the root (read() checks).
      if (!entry.isDirectory && !entry.isSymlink) continue;
      const path = `${dir}/${entry.name}/SKILL.md`;
      const file = reader.read(path);
      if (!file.ok) {
        if (file.reason === 'not found')
          reader.warnings.push(`${dir}/${entry.name}: no SKILL.md; not an enabled skill`);
        continue;
      }
      const meta = frontmatter(file.text);
      const name = meta.name ?? entry.name;
      if (!meta.name) reader.warnings.push(`${path}: frontmatter has no name; using the folder name`);
      if (seen.has(name)) continue;
      seen.add(name);
      snapshot.skills.push({ name, description: meta.description ?? '', path });
    }
  }

  const cache = reader.measure(ALL_SKILLS_DIR);
  if (cache.files > 0) {
    const entry: Excluded = {
      label: `Candidate skill cache (${ALL_SKILLS_DIR})`,
      reason: 'Cached candidates, not enabled skills: never in the model context.',
      bytes: cache.bytes,
      count: cache.files,
    };
    snapshot.excluded.push(entry);
    if (cache.truncated)
      reader.warnings.push(`${ALL_SKILLS_DIR}: more than ${MAX_WALK_ENTRIES} entries; size is a lower bound`);
  }
  return snapshot;
}

/**
 * What opencode.json / .opencode/opencode.json (the later wins) say about compaction and the
 * models' limits: the window's budget depends on them. Anything else in them is not read here.
 */
function agentConfig(configs: readonly Config[]): AgentConfig {
  const config: AgentConfig = { models: {} };
  const number = (value: unknown) =>
    typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;
  for (const { parsed } of configs) {
    if (!isObject(parsed)) continue;
    if (isObject(parsed.compaction)) {
      if (typeof parsed.compaction.auto === 'boolean') config.compactionAuto = parsed.compaction.auto;
      const reserved = number(parsed.compaction.reserved);
      if (reserved !== undefined) config.compactionReserved = reserved;
    }
    if (!isObject(parsed.provider)) continue;
    for (const [provider, spec] of Object.entries(parsed.provider)) {
      if (!isObject(spec) || !isObject(spec.models)) continue;
      for (const [model, modelSpec] of Object.entries(spec.models)) {
        if (!isObject(modelSpec) || !isObject(modelSpec.limit)) continue;
        const { context, input, output } = modelSpec.limit;
        config.models[`${provider}/${model}`] = {
          ...(number(context) !== undefined ? { context: number(context) } : {}),
          ...(number(input) !== undefined ? { input: number(input) } : {}),
          ...(number(output) !== undefined ? { output: number(output) } : {}),
        };
      }
    }
  }
  return config;
}

interface Config {
  path: string;
  parsed: unknown;
}

/** opencode.json and .opencode/opencode.json, parsed (each read once; invalid JSON is a warning). */
function readConfigs(reader: WorkspaceReader): Config[] {
  const configs: Config[] = [];
  for (const path of ['opencode.json', '.opencode/opencode.json']) {
    const file = reader.read(path);
    if (!file.ok) continue;
    try {
      configs.push({ path, parsed: JSON.parse(file.text) as unknown });
    } catch {
      reader.warnings.push(`${path}: not valid JSON; its instructions were not read`);
    }
  }
  return configs;
}

/** AGENTS.md and the `instructions` of opencode.json / .opencode/opencode.json, in that order. */
function instructionPaths(reader: WorkspaceReader, configs: readonly Config[]): string[] {
  const paths = ['AGENTS.md'];
  for (const { path: config, parsed } of configs) {
    const list = (parsed as { instructions?: unknown } | null)?.instructions;
    if (list === undefined) continue;
    if (!Array.isArray(list)) {
      reader.warnings.push(`${config}: "instructions" is not an array; ignored`);
      continue;
    }
    const base = config.startsWith('.opencode/') ? '.opencode' : '';
    for (const item of list) {
      if (typeof item !== 'string') {
        reader.warnings.push(`${config}: an instructions entry is not a string; ignored`);
      } else if (/[*?[\]{}]/.test(item) || /^https?:/.test(item)) {
        reader.warnings.push(`${config}: instructions entry "${item}" is a pattern or URL; not resolved`);
      } else if (isAbsolute(item) || item.startsWith('~')) {
        // OpenCode reads an absolute (or home) path as it is: inside the workspace it is one of
        // its files; anywhere else it is outside what this report may read.
        const inside = isAbsolute(item) ? relative(reader.root, item).split(sep).join('/') : '..';
        if (inside.startsWith('..') || isAbsolute(inside))
          reader.warnings.push(`${config}: instructions entry "${item}" is outside the workspace; not read`);
        else if (!paths.includes(inside)) paths.push(inside);
      } else {
        const joined = relative(reader.root, join(reader.root, base, item))
          .split(sep)
          .join('/');
        if (joined.startsWith('..'))
          reader.warnings.push(`${config}: instructions entry "${item}" is outside the workspace; not read`);
        else if (!paths.includes(joined)) paths.push(joined);
      }
    }
  }
  return paths;
}

function frontmatter(text: string): { name?: string; description?: string } {
  const match = /^---\r?\n([\s\S]*?)\r?\n---/.exec(text);
  if (!match) return {};
  try {
    const data: unknown = parseYaml(match[1]!);
    if (typeof data !== 'object' || data === null) return {};
    const { name, description } = data as Record<string, unknown>;
    return {
      ...(typeof name === 'string' ? { name } : {}),
      ...(typeof description === 'string' ? { description } : {}),
    };
  } catch {
    return {};
  }
}
