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
