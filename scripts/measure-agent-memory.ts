/**
 * npm run measure:agent-memory — what one live agent costs the machine, to choose how many may
 * run at once (INVESTIBOOK_AGENT_MAX_RUNNING) and how long an idle one is kept
 * (INVESTIBOOK_AGENT_IDLE_MS). Starts the demo with the pinned OpenCode in its sandbox on the
 * scripted model (the agent test harness), runs turns in one and then two workspaces, and
 * prints the memory of each agent's whole process tree (bubblewrap, the relay, OpenCode, its MCP
 * server): proportional set size (PSS: shared pages split among the processes that share them)
 * and resident set size, right after start and after turns. docs/benchmarks.md keeps the figures.
 */
import { readFileSync } from 'node:fs';
import { OTHER_WS, startAgentHarness } from '../test/support/agent-harness';
import { commandLine, processTree } from '../test/support/process-tree';

function kib(pid: number, field: 'Pss' | 'Rss'): number {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'));
    return match ? Number(match[1]) : 0;
  } catch {
    return 0;
  }
}

function tree(pid: number) {
  const pids = processTree(pid);
  const parts = pids.map((p) => ({
    what: commandLine(p)[0]?.split('/').at(-1) ?? '?',
    pss: kib(p, 'Pss'),
    rss: kib(p, 'Rss'),
  }));
  const sum = (f: 'pss' | 'rss') => Math.round(parts.reduce((n, p) => n + p[f], 0) / 1024);
  return { pss: sum('pss'), rss: sum('rss'), parts };
}

const h = await startAgentHarness({ second: true });
try {
  const rows: string[] = [];
  const report = (label: string, workspace: string) => {
    const t = tree(h.bridge.processId(workspace)!);
    const parts = t.parts.map((p) => `${p.what} ${Math.round(p.pss / 1024)}`).join(', ');
    rows.push(`| ${label} | ${t.pss} MB | ${t.rss} MB | ${parts} |`);
  };
  let sessionId: string | undefined;
  for (const [index, text] of [
    'What do we know so far?',
    'Tell me about the slow queries',
    'Load the skill',
  ].entries()) {
    const turn = await h.prompt(text, sessionId ? { sessionId } : {});
    sessionId ??= turn.events.find((e) => e.type === 'turn')?.sessionId;
    report(`demo, after turn ${index + 1}`, 'demo');
  }
  await h.other.prompt('What do we know so far?');
  report('a second workspace, after its first turn', OTHER_WS);
  report('the first, meanwhile', 'demo');
  console.log('| agent | PSS | RSS | PSS by process (MB) |\n| --- | --- | --- | --- |');
  console.log(rows.join('\n'));
} finally {
  await h.close();
}
