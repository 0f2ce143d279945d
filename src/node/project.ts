/**
 * The project folder (the one with investibook's package.json), found from this module whether
 * it runs from src/ (tests, tsx) or compiled into build/node/.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

function findRoot(start: string): string {
  for (let folder = start; ; folder = dirname(folder)) {
    const manifest = join(folder, 'package.json');
    if (
      existsSync(manifest) &&
      (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'investibook'
    )
      return folder;
    if (dirname(folder) === folder) throw new Error(`investibook's package.json not found above ${start}`);
  }
}

export const PROJECT_ROOT = findRoot(dirname(fileURLToPath(import.meta.url)));
