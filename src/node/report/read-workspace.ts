/**
 * Reads what the agent runtime always loads from a workspace folder, by its layout: instruction
 * files and the enabled skills' frontmatter, the size of the folders it never loads, and the
 * sizes of the files in the source table's folders. Read-only, never
 * follows a symlink out of the root, reads at most `maxFileBytes` of any file, and turns every
 * oddity (missing folder, binary file, loop) into a warning.
 */
import { parseDeclaredSources, SOURCES_FILE } from './declared-sources';
import { closeSync, lstatSync, openSync, readSync, readdirSync, realpathSync, statSync, type Stats } from 'node:fs';
import { join, sep } from 'node:path';
import { PATH_RULES } from '../../shared/sources';
import type { Excluded } from '../../shared/wire';
import type { WorkspaceLayout, WorkspaceSnapshot } from '../core';

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

  /**
   * Sizes of everything under some folders (the folders themselves included; a folder is 0), by
   * workspace-relative path, breadth first across them, at most `cap` entries. A link counts as
   * what it points to when that stays inside the root (as `size` does), and is not walked into.
   */
  sizes(dirs: readonly string[], cap: number): { sizes: Record<string, number>; truncated: boolean } {
    const sizes: Record<string, number> = {};
    if (this.realRoot === null) return { sizes, truncated: false };
    const queue: string[] = [];
    for (const dir of dirs) {
      const size = this.size(dir);
      if (size === null) continue;
      sizes[dir] = size;
      if (size === 0) queue.push(dir);
    }
    let seen = 0;
    for (let next = 0; next < queue.length; next++) {
      const dir = queue[next]!;
      let entries;
      try {
        entries = readdirSync(join(this.root, dir), { withFileTypes: true });
      } catch {
        continue;
      }
      for (const entry of entries) {
        if (++seen > cap) return { sizes, truncated: true };
        const path = `${dir}/${entry.name}`;
        if (entry.isDirectory()) {
          sizes[path] = 0;
          queue.push(path);
        } else if (entry.isFile()) {
          try {
            sizes[path] = lstatSync(join(this.root, path)).size;
          } catch {
            // vanished while walking: not listed
          }
        } else if (entry.isSymbolicLink()) {
          const size = this.size(path);
          if (size !== null) sizes[path] = size;
        }
      }
    }
    return { sizes, truncated: false };
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

/**
 * What the runtime loads for every request, from the workspace folder, by the runtime's layout:
 * its config files, the instruction files they name, the enabled skills; the size of the folders
 * it never loads; and the sizes of the files whose reads decide a source (the folders of the
 * source table), for attributing shell commands that name them. All of it as data: the core
 * reads no folder.
 */
export function readWorkspace(reader: WorkspaceReader, layout: WorkspaceLayout): WorkspaceSnapshot {
  const snapshot: WorkspaceSnapshot = {
    root: reader.root,
    instructions: [],
    skills: [],
    excluded: [],
    warnings: reader.warnings,
    stamps: reader.stamps,
    files: {},
  };
  if (!reader.available) return snapshot;

  const configs: { path: string; parsed: unknown }[] = [];
  for (const path of layout.configFiles) {
    const file = reader.read(path);
    if (!file.ok) continue;
    const parsed = layout.parseConfig(file.text);
    if ('parsed' in parsed) configs.push({ path, parsed: parsed.parsed });
    else reader.warnings.push(`${path}: ${parsed.error}; its instructions were not read`);
  }
  snapshot.agentConfig = layout.agentConfig(configs);
  const declared = reader.read(SOURCES_FILE);
  if (declared.ok) {
    const { sources, warnings } = parseDeclaredSources(declared.text, SOURCES_FILE);
    reader.warnings.push(...warnings);
    if (sources.length) snapshot.declaredSources = sources;
  }
  for (const path of layout.instructionPaths(configs, reader.root, (m) => reader.warnings.push(m))) {
    const file = reader.read(path);
    if (file.ok) snapshot.instructions.push({ path, text: file.text });
    else if (file.reason === 'not found' && path !== 'AGENTS.md') {
      reader.warnings.push(`${path}: listed in instructions but not found`);
    }
  }

  const seen = new Set<string>();
  for (const dir of layout.skillDirs) {
    for (const entry of reader.list(dir)) {
      // A linked skill folder is followed only if it stays inside the root (read() checks).
      if (!entry.isDirectory && !entry.isSymlink) continue;
      const path = `${dir}/${entry.name}/${layout.skillFile}`;
      const file = reader.read(path);
      if (!file.ok) {
        if (file.reason === 'not found')
          reader.warnings.push(`${dir}/${entry.name}: no ${layout.skillFile}; not an enabled skill`);
        continue;
      }
      const meta = layout.skillMeta(file.text);
      const name = meta.name ?? entry.name;
      if (!meta.name) reader.warnings.push(`${path}: frontmatter has no name; using the folder name`);
      if (seen.has(name)) continue;
      seen.add(name);
      snapshot.skills.push({ name, description: meta.description ?? '', path });
    }
  }

  for (const { dir, label, reason } of layout.excludedDirs) {
    const measured = reader.measure(dir);
    if (measured.files === 0) continue;
    const entry: Excluded = { label, reason, bytes: measured.bytes, count: measured.files };
    snapshot.excluded.push(entry);
    if (measured.truncated)
      reader.warnings.push(`${dir}: more than ${MAX_WALK_ENTRIES} entries; size is a lower bound`);
  }

  const folders = sourceFolders(layout);
  const listed = reader.sizes(folders, MAX_WALK_ENTRIES);
  snapshot.files = listed.sizes;
  for (const { path } of snapshot.stamps) {
    const size = reader.size(path);
    if (size !== null) snapshot.files[path] = size;
  }
  if (listed.truncated) {
    snapshot.filesTruncated = true;
    reader.warnings.push(
      `more than ${MAX_WALK_ENTRIES} files in ${folders.join(', ')}: shell commands naming files past them are attributed without their sizes`,
    );
  }
  return snapshot;
}

/**
 * Folders whose files decide a source when a shell command names them: the source table's, and
 * the runtime's skill folders (after the first of the table's, as they were listed before the
 * runtime named them).
 */
function sourceFolders(layout: WorkspaceLayout): string[] {
  const table = PATH_RULES.filter((rule) => rule.source !== 'unknown_tool_payload').map((rule) => rule.under);
  return [...new Set([...table.slice(0, 1), ...layout.skillDirs, ...table.slice(1)])];
}
