/**
 * Creating the folder a file goes in, without the hangs of Node 20's recursive mkdir on
 * impossible paths (/proc/nope/x.db spins forever): levels are made one at a time, from the
 * nearest folder that exists, and any failure is one clear error.
 */
import { mkdirSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

export class FolderError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FolderError';
  }
}

export function ensureFolder(folder: string): void {
  const missing: string[] = [];
  let current = resolve(folder);
  for (;;) {
    let isDirectory: boolean | null = null;
    try {
      isDirectory = statSync(current).isDirectory();
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT') throw new FolderError(`cannot use ${current} (${code ?? 'error'})`);
    }
    if (isDirectory === true) break;
    if (isDirectory === false) throw new FolderError(`${current} is not a folder`);
    missing.push(current);
    const parent = dirname(current);
    if (parent === current || missing.length > 64) throw new FolderError(`cannot create ${folder}`);
    current = parent;
  }
  for (const level of missing.reverse()) {
    try {
      // Owner-only: what investibook keeps (the database, the token, the agents' state) is every message.
      mkdirSync(level, { mode: 0o700 });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'EEXIST') throw new FolderError(`cannot create ${level} (${code ?? 'error'})`);
    }
  }
}
