/**
 * The project folder (the one with investibook's package.json), found from this module whether
 * it runs from src/ (tests, tsx) or compiled into build/node/.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

function findRoot(start: string): { folder: string; version: string } {
  for (let folder = start; ; folder = dirname(folder)) {
    const manifest = join(folder, 'package.json');
    if (existsSync(manifest)) {
      const { name, version } = JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string; version?: string };
      if (name === 'investibook') return { folder, version: version ?? '0.0.0' };
    }
    if (dirname(folder) === folder) throw new Error(`investibook's package.json not found above ${start}`);
  }
}

const root = findRoot(dirname(fileURLToPath(import.meta.url)));
export const PROJECT_ROOT = root.folder;
/** investibook's version, from the same package.json. */
export const PROJECT_VERSION = root.version;
