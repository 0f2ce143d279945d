/** The floor processes' read of the workspace folder: every file once, its bytes summed. */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export function folderBytes(dir) {
  let bytes = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) bytes += folderBytes(join(dir, entry.name));
    else bytes += readFileSync(join(dir, entry.name)).length;
  }
  return bytes;
}
