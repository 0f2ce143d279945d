/**
 * npm run cost-of-change: what each kind of change costs in existing product files, measured
 * rather than remembered. Each trial is a small patch kept in scripts/cost-of-change/ — a
 * source, a command, a tokenizer, an agent runtime — with a test of its own under test/trials/.
 * For each: a temporary git worktree at HEAD (this checkout's node_modules linked in), the patch
 * applied, `tsc` and the trial's test run there, and the files it touched counted: existing
 * product files changed (src/, the build and lint configs) apart from new files and tests.
 * Prints a Markdown table (docs/architecture.md keeps the latest); exits 1 when a trial no
 * longer applies, typechecks or passes — the seam it measured has moved, and the patch with it.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../src/node/project';

const DIR = join(PROJECT_ROOT, 'scripts', 'cost-of-change');
const TRIALS: Record<string, string> = {
  source: 'a source (Runbooks): a row of the source table',
  command: 'a command (/echo): its file, a line in the list, its view',
  tokenizer: 'a tokenizer (words): an estimator and its id',
  runtime: 'an agent runtime (plain chat): an adapter in core/, a line in report/runtimes.ts',
};

const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8' });
const isTest = (path: string) => path.startsWith('test/');

interface Result {
  name: string;
  existing: string[];
  added: string[];
  tests: string[];
  typecheck: boolean;
  test: boolean;
}

function trial(name: string): Result {
  const work = mkdtempSync(join(tmpdir(), `investibook-trial-${name}-`));
  rmSync(work, { recursive: true });
  git(PROJECT_ROOT, 'worktree', 'add', '--detach', work, 'HEAD');
  try {
    symlinkSync(join(PROJECT_ROOT, 'node_modules'), join(work, 'node_modules'));
    git(work, 'apply', '--index', join(DIR, `${name}.patch`));
    const changed = git(work, 'diff', '--cached', '--name-status', 'HEAD')
      .trim()
      .split('\n')
      .map((line) => line.split('\t') as [string, string]);
    const run = (command: string, args: string[]) =>
      spawnSync(command, args, { cwd: work, stdio: ['ignore', 'ignore', 'inherit'], encoding: 'utf8' }).status === 0;
    return {
      name,
      existing: changed.filter(([status, path]) => status === 'M' && !isTest(path)).map(([, path]) => path),
      added: changed.filter(([status, path]) => status === 'A' && !isTest(path)).map(([, path]) => path),
      tests: changed.filter(([, path]) => isTest(path)).map(([, path]) => path),
      typecheck: run('npx', ['tsc', '-p', 'tsconfig.json', '--noEmit']),
      test: run('npx', ['vitest', 'run', '--config', join(DIR, 'vitest.config.ts'), '--root', work]),
    };
  } finally {
    git(PROJECT_ROOT, 'worktree', 'remove', '--force', work);
  }
}

const patches = readdirSync(DIR)
  .filter((f) => f.endsWith('.patch'))
  .map((f) => f.slice(0, -'.patch'.length));
// The trials in the table's order, then any other patch kept there.
const names = [...Object.keys(TRIALS).filter((n) => patches.includes(n)), ...patches.filter((n) => !(n in TRIALS))];
const results = names.map(trial);
console.log('| change | existing product files touched | new files | typecheck | its test |');
console.log('|---|---|---|---|---|');
for (const r of results) {
  console.log(
    `| ${TRIALS[r.name] ?? r.name} | ${r.existing.length}: ${r.existing.map((p) => `\`${p}\``).join(', ') || '—'} | ${r.added.length} | ${r.typecheck ? 'passes' : 'FAILS'} | ${r.test ? 'passes' : 'FAILS'} |`,
  );
}
if (results.some((r) => !r.typecheck || !r.test)) process.exitCode = 1;
