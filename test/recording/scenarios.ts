/**
 * The sessions recorded from the real OpenCode runtime (npm run record:opencode). Each runs in
 * a fresh copy of the recording workspace against the scripted model; together they cover
 * what the report must get right: a fresh investigation, a compaction that keeps a tail,
 * pruned tool outputs, shell reads and a file re-read after an edit, and the fault paths
 * (tool and provider errors, a cancelled turn, attached files).
 */
import type { Script, ScriptedStep } from '../../src/node/scripted-model/script';
import type { ScriptedFamily } from '../../src/node/scripted-model/server';
import { INCIDENT_MCP, type RecordingWorkspace } from './workspace';
import { DEMO_SCENARIOS } from './demo-scenarios';

export interface PromptSpec {
  text: string;
  /** Workspace files or folders attached to the prompt (ACP resource links). */
  attach?: string[];
  /** PNG files (paths from the project root, or `ws:PATH` in the workspace) attached as ACP image blocks. */
  images?: string[];
  /** Text only the agent reads (ACP annotations audience: assistant → a synthetic part). */
  context?: string;
  /** Cancel the turn once a tool call of this name is running. */
  cancelOnTool?: string;
}

export interface Scenario {
  name: string;
  description: string;
  /** Where the recording goes: a test fixture, or the demo's seed. */
  output: 'fixtures' | 'demo';
  /** The recording workspace (open permissions, a large log; with a screenshot), or the demo's own. */
  workspace: RecordingWorkspace;
  contextLimit?: number;
  prune?: boolean;
  /** The encoding the scripted model counts prompts with (default o200k_base). */
  tokenizer?: 'o200k_base' | 'cl100k_base';
  /** How the scripted model behaves like a provider family (hidden reasoning, vision, …). */
  family?: ScriptedFamily;
  /** The main model's id (default `scripted`; `claude-scripted` is a Claude model to OpenCode). */
  modelId?: string;
  /** Shell commands the operator refuses when the agent asks (the rest are allowed). */
  refuse?: RegExp;
  /** MCP servers OpenCode is configured with (`mcp` of its configuration). */
  mcp?: Record<string, unknown>;
  prompts: (string | PromptSpec)[];
  script: (root: string) => Script;
}

const read = (root: string, path: string, extra: Record<string, unknown> = {}) => ({
  name: 'read',
  args: { filePath: `${root}/${path}`, ...extra },
});
const bash = (command: string) => ({ name: 'bash', args: { command } });
const skill = (name: string) => ({ name: 'skill', args: { name } });

const SUMMARY = `## Goal
Find why payment requests time out on prod-pay-tidb-hz1 (INC-4821).

## Findings so far
- Slow queries on merchant_limits since 02:10 UTC; p99 above 2 s.
- Store 4 holds a hot read region; TiKV answers serverIsBusy on that store only.
- The Clinic method points at a read hotspot, not a plan change.

## Next steps
- Confirm the hot region with pd-ctl; draft the incident note.`;

const base = (turns: Script['turns']): Script => ({
  turns,
  summary: SUMMARY,
  title: 'INC-4821 payment timeouts',
  fallback: 'Done.',
});

const answer = (text: string): ScriptedStep => ({ text });

/** Reasoning a local model shows at length (a few hundred tokens each). */
const LONG_REASONING = [
  'Let me think about this step by step. The incident is about payment requests timing out on the production TiDB cluster. The first thing to establish is which component is slow: TiDB itself, TiKV, or PD. The evidence summary usually lists what was collected and where, so reading it first tells me which files exist and which are worth reading in full. After that the cluster overview gives the topology: how many TiKV stores, which versions, and where the leaders are. Only then does it make sense to look at the slow-query log, because without the topology I cannot tell whether one store is overloaded or the whole cluster is. I will also keep in mind that the alerts may have fired in a particular order, which would tell me the direction of causality.',
  'Now that I have the summary, the next question is topology. A hot region would show as one store with many more read requests than the others, while a plan change would show on every store at once. The cluster overview should list six TiKV stores. If store 4 is the one with the highest read flow and the serverIsBusy errors only come from store 4, that points strongly at a read hotspot rather than a plan regression. I should check the region distribution and leader balance, because an unbalanced leader placement can create a hotspot even with uniform traffic. The metrics file would confirm the gRPC latency per store.',
  'Putting it together: the summary says the slow queries are all on merchant_limits, the cluster overview shows store 4 carrying the hot leaders, and the timing lines up with the first alert. The most likely cause is a read hotspot on store 4, created by many merchants querying their limits at the same time after the 02:10 batch job started. The fix would be to split the hot region and let PD rebalance the leaders, and in the longer term to cache the limits in the payment service so every request does not hit the same keys.',
  'The alerts will tell me which symptom appeared first. If the TiKV busy alert fired before the TiDB latency alert, the storage layer is the origin and TiDB is only suffering from it. If the TiDB alert came first, something in the SQL layer changed, such as a plan or a connection storm. I expect TiKV_server_is_busy on store 4 to come first, two minutes before the payment p99 alert, which would confirm the hotspot theory from the earlier reasoning.',
];

const SUBAGENT_PROMPT =
  'Subagent task: read evidence/pd-hot-regions.txt and meta/cluster.json, ask the incident tools for the hot read regions, and say which store holds them.';

const FRESH_PROMPT =
  'INC-4821: payment requests time out on prod-pay-tidb-hz1. Investigate and tell me the likely cause.';

export const SCENARIOS: Scenario[] = [
  {
    name: 'fresh',
    output: 'fixtures',
    workspace: 'recording',
    description: 'One investigation turn: evidence and metadata reads, a skill load, a shell grep, an answer.',
    prompts: [FRESH_PROMPT],
    script: (root) =>
      base([
        {
          when: 'INC-4821: payment requests time out',
          steps: [
            {
              reasoning: 'Start from the evidence summary, then the cluster metadata, as AGENTS.md says.',
              tools: [read(root, 'evidence/evidence_summary_for_agent.txt'), read(root, 'meta/cluster.json')],
            },
            { tools: [read(root, 'meta/alerts.json'), skill('tidb-clinic-diagnosis')] },
            { tools: [bash('grep -n "merchant_limits" evidence/slow-query.log | head -40')] },
            {
              tools: [read(root, 'evidence/metrics/tikv_grpc_p99.json', { limit: 400 })],
            },
            answer(
              'Most likely cause: a read hotspot on store 4. The slow log shows merchant_limits lookups above 2 s from 02:10 UTC, and TiKV answers serverIsBusy on store 4 only. Next: `pd-ctl hot read` to confirm, then split the hot region.',
            ),
          ],
        },
      ]),
  },
  {
    name: 'compaction-tail',
    output: 'fixtures',
    workspace: 'recording',
    description:
      'Three turns with large evidence reads, a manual /compact that keeps the last turn as its tail, then one more turn.',
    prompts: [
      'INC-4821: start with the slow-query log and tell me what stands out.',
      'Now look at the TiKV gRPC metrics.',
      'Which alert fired first?',
      '/compact',
      'Continue: draft the timeline for the incident note.',
    ],
    script: (root) =>
      base([
        {
          when: 'start with the slow-query log',
          steps: [
            { tools: [read(root, 'evidence/slow-query.log')] },
            answer('merchant_limits SELECTs dominate the slow log from 02:10 UTC, all on one digest.'),
          ],
        },
        {
          when: 'TiKV gRPC metrics',
          steps: [
            { tools: [read(root, 'evidence/metrics/tikv_grpc_p99.json')] },
            answer('gRPC p99 jumps on store 4 only, from 02:09 UTC.'),
          ],
        },
        {
          when: 'Which alert fired first',
          steps: [
            { tools: [read(root, 'meta/alerts.json'), read(root, 'evidence/pd-hot-regions.txt')] },
            answer(
              'TiKV_server_is_busy on store 4 at 02:14 UTC, two minutes before the TiDB p99 alert; PD lists store 4 as the hot read leader.',
            ),
          ],
        },
        {
          when: 'draft the timeline',
          steps: [
            { tools: [read(root, 'meta/issue.json')] },
            answer(
              'Timeline (UTC): 02:10 merchant_limits slow; 02:14 TiKV serverIsBusy on store 4; 02:16 TiDB p99 alert.',
            ),
          ],
        },
      ]),
  },
  {
    name: 'pruning',
    output: 'fixtures',
    workspace: 'recording',
    description:
      'A first turn reads ~300 KB of application log in six pages; two short turns later OpenCode prunes those outputs; a last turn sees the placeholders.',
    prune: true,
    prompts: [
      'INC-4821: read the whole application log evidence/app.log and summarise the errors.',
      'How many stores are involved?',
      'Is the GC worker healthy?',
      'Summarise the incident in two lines.',
    ],
    script: (root) =>
      base([
        {
          when: 'read the whole application log',
          steps: [
            { tools: [read(root, 'evidence/app.log', { offset: 1, limit: 1000 })] },
            { tools: [read(root, 'evidence/app.log', { offset: 1001, limit: 1000 })] },
            { tools: [read(root, 'evidence/app.log', { offset: 2001, limit: 1000 })] },
            { tools: [read(root, 'evidence/app.log', { offset: 3001, limit: 1000 })] },
            { tools: [read(root, 'evidence/app.log', { offset: 4001, limit: 1000 })] },
            { tools: [read(root, 'evidence/app.log', { offset: 5001, limit: 1000 })] },
            answer('Errors cluster on write conflicts and region epoch mismatches from 02:10 UTC.'),
          ],
        },
        {
          when: 'How many stores',
          steps: [{ tools: [read(root, 'meta/cluster.json')] }, answer('Six TiKV stores; store 4 is the hot one.')],
        },
        { when: 'GC worker healthy', steps: [answer('Yes: the safe point keeps advancing throughout the log.')] },
        {
          when: 'Summarise the incident',
          steps: [answer('A read hotspot on store 4 slowed merchant_limits lookups from 02:10 UTC.')],
        },
      ]),
  },
  {
    name: 'shell-reread',
    output: 'fixtures',
    workspace: 'recording',
    description:
      'Shell commands that read workspace files, a read of the notes, an edit, the changed notes read again, and one file read twice unchanged.',
    prompts: [
      'INC-4821: check the cluster and alerts with shell commands, then update notes/findings.md with the store number.',
    ],
    script: (root) =>
      base([
        {
          when: 'check the cluster and alerts with shell commands',
          steps: [
            { tools: [bash('cat meta/cluster.json'), bash('grep -n "severity" meta/alerts.json')] },
            { tools: [bash('grep -c "ERROR" evidence/app.log'), bash('ls')] },
            { tools: [read(root, 'notes/findings.md'), read(root, 'evidence/pd-hot-regions.txt')] },
            {
              tools: [
                {
                  name: 'edit',
                  args: {
                    filePath: `${root}/notes/findings.md`,
                    oldString: '- Hypothesis: hot region on store 4.',
                    newString: '- Hypothesis: hot read leader on store 4 (pd-ctl hot read, 02:21 UTC).',
                  },
                },
              ],
            },
            { tools: [read(root, 'notes/findings.md'), read(root, 'evidence/pd-hot-regions.txt')] },
            answer('Updated notes/findings.md: store 4 leads the hot read regions.'),
          ],
        },
      ]),
  },
  {
    name: 'faults',
    output: 'fixtures',
    workspace: 'recording',
    description:
      'A read of a missing file (tool error), a provider error, a turn cancelled while a shell command runs, and a prompt with an attached file and folder.',
    prompts: [
      'INC-4821: read evidence/tidb.log and the evidence summary.',
      'Try the TiKV log as well.',
      { text: 'Run the long PD check script.', cancelOnTool: 'bash' },
      {
        text: 'Here is the issue record and the meta folder: what is the customer impact?',
        attach: ['meta/issue.json', 'meta'],
      },
    ],
    script: (root) =>
      base([
        {
          when: 'read evidence/tidb.log',
          steps: [
            {
              reasoning: 'The TiDB log may not have been collected; read it and the summary together.',
              tools: [read(root, 'evidence/tidb.log'), read(root, 'evidence/evidence_summary_for_agent.txt')],
            },
            answer('evidence/tidb.log was not collected; the summary lists slow-query.log and metrics instead.'),
          ],
        },
        { when: 'TiKV log as well', steps: [{ fail: { status: 400, message: 'scripted: invalid request' } }] },
        {
          when: 'long PD check script',
          steps: [{ tools: [bash('echo "checking PD…"; sleep 30; echo done')] }, answer('PD check finished.')],
        },
        {
          when: 'what is the customer impact',
          steps: [answer('Checkout payments time out for merchant tenants on tier 1: a SEV1 by the paging policy.')],
        },
      ]),
  },
  {
    name: 'auto-compaction',
    output: 'fixtures',
    workspace: 'recording',
    description:
      'A small context window (40k): big reads overflow it, OpenCode compacts on its own, keeps a tail and continues with its synthetic "Continue" prompt.',
    contextLimit: 40_000,
    prompts: [
      'INC-4821: read the slow-query log, the TiKV metrics and the first part of evidence/app.log, then summarise.',
    ],
    script: (root) =>
      base([
        {
          when: 'read the slow-query log, the TiKV metrics',
          steps: [
            { tools: [read(root, 'evidence/slow-query.log')] },
            { tools: [read(root, 'evidence/metrics/tikv_grpc_p99.json')] },
            { tools: [read(root, 'evidence/app.log', { offset: 1, limit: 400 })] },
            answer('Slow merchant_limits lookups, store 4 hot, and write conflicts in the application log.'),
          ],
        },
        {
          when: 'Continue if you have next steps',
          steps: [
            { tools: [read(root, 'meta/alerts.json')] },
            answer('Continuing after the compaction: the alerts confirm store 4 (TiKV_server_is_busy at 02:14 UTC).'),
          ],
        },
      ]),
  },
  {
    name: 'fresh-cl100k',
    output: 'fixtures',
    workspace: 'recording',
    description:
      "The fresh session against a provider whose tokenizer is not the report's (cl100k_base): calibration must bridge the difference.",
    tokenizer: 'cl100k_base',
    prompts: [FRESH_PROMPT],
    script: (root) => SCENARIOS[0]!.script(root),
  },
  {
    name: 'hidden-reasoning-turn',
    output: 'fixtures',
    workspace: 'recording',
    description:
      'A provider that reasons out of sight like OpenAI’s: it reports reasoning tokens behind short summaries, keeps them in the prompt for the rest of the turn and drops them at the next user message.',
    family: { hiddenReasoning: 'turn' },
    prompts: [
      'INC-4821: work out why payments time out, and think it through carefully.',
      'Which store holds the hot region?',
      'Check the incident record, then summarise in two lines.',
    ],
    script: (root) =>
      base([
        {
          when: 'work out why payments time out',
          steps: [
            {
              reasoning: 'Start from the evidence summary.',
              hidden: 1800,
              tools: [read(root, 'evidence/evidence_summary_for_agent.txt')],
            },
            { hidden: 2400, tools: [read(root, 'meta/cluster.json'), read(root, 'meta/alerts.json')] },
            { reasoning: 'The slow log next.', hidden: 1200, tools: [read(root, 'evidence/slow-query.log')] },
            {
              hidden: 3000,
              text: 'A read hotspot on store 4: merchant_limits lookups above 2 s from 02:10 UTC, TiKV busy on store 4 only.',
            },
          ],
        },
        {
          when: 'Which store holds the hot region',
          steps: [
            { hidden: 900, tools: [read(root, 'evidence/pd-hot-regions.txt')] },
            { hidden: 600, text: 'Store 4 leads every hot read region in the PD dump.' },
          ],
        },
        {
          when: 'Check the incident record',
          steps: [
            {
              reasoning: 'The issue record has the customer impact.',
              hidden: 700,
              tools: [read(root, 'meta/issue.json')],
            },
            { text: 'Payments time out for tier-1 merchants: a read hotspot on TiKV store 4 since 02:10 UTC.' },
          ],
        },
      ]),
  },
  {
    name: 'hidden-reasoning-session',
    output: 'fixtures',
    workspace: 'recording',
    description:
      'A Claude model (to OpenCode) on a provider like Anthropic’s: its own tokenizer, long thinking shown as a short summary and counted only inside the output, kept in every later prompt of the session.',
    modelId: 'claude-scripted',
    family: { encoding: 'claude', hiddenReasoning: 'session', reportsReasoningTokens: false },
    prompts: [
      'INC-4821: what do the evidence summary and the cluster say? Think hard.',
      'Now the slow-query log: what stands out?',
      'Draft the incident note.',
    ],
    script: (root) =>
      base([
        {
          when: 'what do the evidence summary and the cluster say',
          steps: [
            {
              reasoning: 'Summary of my thinking: read the summary and the cluster overview first.',
              hidden: 2500,
              tools: [read(root, 'evidence/evidence_summary_for_agent.txt'), read(root, 'meta/cluster.json')],
            },
            {
              reasoning: 'Summary of my thinking: store 4 stands out everywhere.',
              hidden: 6000,
              text: 'The summary points at merchant_limits slow queries; the cluster has six TiKV stores and store 4 is the busy one.',
            },
          ],
        },
        {
          when: 'Now the slow-query log',
          steps: [
            {
              reasoning: 'Summary of my thinking: the slow log will show the statement.',
              hidden: 1500,
              tools: [read(root, 'evidence/slow-query.log')],
            },
            { hidden: 800, text: 'One statement dominates: SELECT … FROM merchant_limits, above 2 s from 02:10 UTC.' },
          ],
        },
        {
          when: 'Draft the incident note',
          steps: [
            {
              reasoning: 'Summary of my thinking: keep it to the timeline.',
              hidden: 1200,
              tools: [read(root, 'meta/issue.json')],
            },
            { text: 'INC-4821 — 02:10 UTC merchant_limits slow; 02:14 TiKV store 4 busy; 02:16 payment p99 alert.' },
          ],
        },
      ]),
  },
  {
    name: 'reasoning-not-received',
    output: 'fixtures',
    workspace: 'recording',
    description:
      'A local model that shows its reasoning but never counts reasoning sent back with earlier messages: what it showed is not in its context.',
    family: { receivesReasoning: false },
    prompts: ['INC-4821: reason step by step about the evidence and the cluster.', 'And the alerts?'],
    script: (root) =>
      base([
        {
          when: 'reason step by step about the evidence',
          steps: [
            { reasoning: LONG_REASONING[0], tools: [read(root, 'evidence/evidence_summary_for_agent.txt')] },
            { reasoning: LONG_REASONING[1], tools: [read(root, 'meta/cluster.json')] },
            {
              reasoning: LONG_REASONING[2],
              text: 'Store 4 is the hot store; merchant_limits lookups are the slow ones.',
            },
          ],
        },
        {
          when: 'And the alerts',
          steps: [
            { reasoning: LONG_REASONING[3], tools: [read(root, 'meta/alerts.json')] },
            { reasoning: LONG_REASONING[0], text: 'TiKV_server_is_busy on store 4 fired first, at 02:14 UTC.' },
          ],
        },
      ]),
  },
  {
    name: 'vision',
    output: 'fixtures',
    workspace: 'recording-images',
    description:
      'A Claude model on a provider like Anthropic’s — its own tokenizer, images charged by its published vision rule: a screenshot pasted into the prompt, and the same screenshot read from the evidence folder by a tool.',
    modelId: 'claude-scripted',
    family: { encoding: 'claude', vision: 'anthropic' },
    prompts: [
      {
        text: 'INC-4821: here is the Grafana panel I saw. What does it show?',
        images: ['ws:evidence/screenshots/tikv-grpc-p99.png'],
      },
      'Read evidence/screenshots/tikv-grpc-p99.png and the TiKV metrics, and compare them.',
    ],
    script: (root) =>
      base([
        {
          when: 'here is the Grafana panel',
          steps: [answer('The panel shows TiKV gRPC p99 rising from 02:09 UTC, on one store only.')],
        },
        {
          when: 'Read evidence/screenshots',
          steps: [
            { tools: [read(root, 'evidence/screenshots/tikv-grpc-p99.png')] },
            { tools: [read(root, 'evidence/metrics/tikv_grpc_p99.json', { limit: 200 })] },
            answer('The screenshot and the metrics agree: store 4’s gRPC p99 jumps at 02:09 UTC.'),
          ],
        },
      ]),
  },
  {
    name: 'subagent',
    output: 'fixtures',
    workspace: 'recording',
    description:
      'A task call that hands the hot-region check to a subagent (a child session of its own: reads and an MCP tool call), with an MCP server of seven tools configured; the parent reads one more file and answers.',
    mcp: INCIDENT_MCP,
    prompts: ['INC-4821: delegate the hot-region check to a subagent, then tell me which store is hot.'],
    script: (root) =>
      base([
        {
          when: 'INC-4821: delegate the hot-region check',
          steps: [
            {
              tools: [
                {
                  name: 'task',
                  args: {
                    description: 'Check the hot regions',
                    prompt: SUBAGENT_PROMPT,
                    subagent_type: 'general',
                  },
                },
              ],
            },
            { tools: [read(root, 'meta/alerts.json')] },
            answer(
              'Store 4 is hot: the subagent found it leads every hot read region, and TiKV busy fired there first.',
            ),
          ],
        },
        {
          when: SUBAGENT_PROMPT.slice(0, 40),
          steps: [
            { tools: [read(root, 'evidence/pd-hot-regions.txt'), read(root, 'meta/cluster.json')] },
            {
              tools: [
                {
                  name: 'incident-tools_pd_hot_regions',
                  args: { cluster: 'prod-pay-tidb-hz1', kind: 'read', limit: 3 },
                },
              ],
            },
            answer('Store 4 leads regions 7741 and 7742, the two hottest read regions (182 and 97 MB/s).'),
          ],
        },
      ]),
  },
  ...DEMO_SCENARIOS,
];
