import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Io } from '../../src/node/cli/main';

/** An Io that records what the CLI prints. */
export function captureIo(
  cwd: string,
  env: NodeJS.ProcessEnv = {},
): Io & { stdout: () => string; stderr: () => string } {
  let out = '';
  let err = '';
  return { out: (t) => void (out += t), err: (t) => void (err += t), cwd, env, stdout: () => out, stderr: () => err };
}

let placed = 0;
/** A fresh folder under `dir` with a workspace folder `ws` in it: where an import test's database and workspace go. */
export function placeIn(dir: string): { base: string; db: string; root: string } {
  const base = join(dir, `t${placed++}`);
  mkdirSync(join(base, 'ws'), { recursive: true });
  return { base, db: join(base, 'x.db'), root: join(base, 'ws') };
}
