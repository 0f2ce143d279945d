// What bin/investibook.js checks at start in a checkout, and nothing more: the commit the
// compiled programs were built at (build/node/stamp.json's `head`) against the checkout's HEAD —
// two or three small file reads, no walk of the sources. A pull, a checkout or a merge moves HEAD,
// so a user who never edits the code never runs a stale build; then (and only then) the full
// fingerprint of the sources decides whether to compile (scripts/build-node.mjs). Edits not yet
// committed are the developer's own tools' to build: `npm install` (prepare), every test run's
// setup, `npm start`, `npm run dev`, `npm run demo:agent` and `npm run build` (docs/architecture.md,
// "How build/node stays fresh").
//
// Plain JavaScript and only node:fs, node:path and node:url: it runs before anything is compiled,
// at every CLI start.
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const read = (path) => {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    return null;
  }
};

/** The commit HEAD names in the checkout at root (a worktree's too), or null outside a git checkout. */
export function checkoutHead(root) {
  let gitDir = join(root, '.git');
  const pointer = read(gitDir);
  // A worktree's .git is a file naming its folder; a checkout's own is the folder itself (read fails).
  if (pointer?.startsWith('gitdir: ')) gitDir = resolve(root, pointer.slice('gitdir: '.length));
  else if (!existsSync(join(gitDir, 'HEAD'))) return null;
  const head = read(join(gitDir, 'HEAD'));
  if (!head?.startsWith('ref: ')) return head; // detached: the commit itself
  const ref = head.slice('ref: '.length);
  const common = read(join(gitDir, 'commondir'));
  const refsDir = common ? resolve(gitDir, common) : gitDir;
  const loose = read(join(gitDir, ref)) ?? read(join(refsDir, ref));
  if (loose) return loose;
  const packed = read(join(refsDir, 'packed-refs'));
  const line = packed?.split('\n').find((l) => l.endsWith(` ${ref}`));
  return line ? line.slice(0, line.indexOf(' ')) : `unborn ${ref}`;
}

export function readStamp(root) {
  try {
    return JSON.parse(readFileSync(join(root, 'build', 'node', 'stamp.json'), 'utf8'));
  } catch {
    return null;
  }
}

/**
 * The compiled entry point to run: as it is while the checkout's HEAD is the one it was built at,
 * else after scripts/build-node.mjs's full check (which compiles only when a source changed).
 */
export async function freshEntry(entry, root) {
  const output = join(root, 'build', 'node', `${entry}.mjs`);
  const stamp = readStamp(root);
  if (stamp && stamp.head === checkoutHead(root) && existsSync(output)) return output;
  const { ensureBuilt } = await import('./build-node.mjs');
  return ensureBuilt(entry, root);
}
