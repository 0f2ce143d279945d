/**
 * The sessions recorded from the real Claude Code (npm run record:claude-code): the recording
 * workspace with Claude Code's own layout beside OpenCode's (CLAUDE.md, .claude/skills), against
 * the scripted model's Messages API. Tool names and inputs are Claude Code's.
 */
import type { Script } from '../../src/node/scripted-model/script';

export interface ClaudeCodeScenario {
  name: string;
  description: string;
  prompts: string[];
  script: (root: string) => Script;
}

const read = (root: string, path: string, extra: Record<string, unknown> = {}) => ({
  name: 'Read',
  args: { file_path: `${root}/${path}`, ...extra },
});
const bash = (command: string, description: string) => ({ name: 'Bash', args: { command, description } });

const base = (turns: Script['turns']): Script => ({
  turns,
  summary: 'INC-4821: a read hotspot on store 4 is the likely cause; confirm with pd-ctl.',
  title: 'INC-4821 payment timeouts',
  fallback: 'Done.',
});

const FRESH_PROMPT =
  'INC-4821: payment requests time out on prod-pay-tidb-hz1. Investigate and tell me the likely cause.';

const freshTurn = (root: string): Script['turns'][number] => ({
  when: 'INC-4821: payment requests time out',
  steps: [
    { tools: [read(root, 'evidence/evidence_summary_for_agent.txt'), read(root, 'meta/cluster.json')] },
    { tools: [bash('grep -n "merchant_limits" evidence/slow-query.log | head -40', 'Find slow queries')] },
    { text: 'Most likely cause: a read hotspot on store 4.' },
  ],
});

export const CLAUDE_CODE_SCENARIOS: ClaudeCodeScenario[] = [
  {
    name: 'fresh',
    description: 'One investigation turn: evidence and metadata reads, a skill, a shell grep, an answer.',
    prompts: [FRESH_PROMPT],
    script: (root) =>
      base([
        {
          when: 'INC-4821: payment requests time out',
          steps: [
            { tools: [read(root, 'evidence/evidence_summary_for_agent.txt'), read(root, 'meta/cluster.json')] },
            { tools: [read(root, 'meta/alerts.json'), { name: 'Skill', args: { skill: 'tidb-clinic-diagnosis' } }] },
            { tools: [bash('grep -n "merchant_limits" evidence/slow-query.log | head -40', 'Find slow queries')] },
            { tools: [read(root, 'evidence/metrics/tikv_grpc_p99.json', { limit: 400 })] },
            {
              text: 'Most likely cause: a read hotspot on store 4. The slow log shows merchant_limits lookups above 2 s from 02:10 UTC, and TiKV answers serverIsBusy on store 4 only.',
            },
          ],
        },
      ]),
  },
  {
    name: 'subagent',
    description: 'A turn that hands a search to a subagent (Task), then answers from its report.',
    prompts: ['INC-4821 hot regions: ask a subagent which store holds them.'],
    script: (root) =>
      base([
        {
          when: 'INC-4821 hot regions',
          steps: [
            {
              tools: [
                {
                  name: 'Task',
                  args: {
                    description: 'Find the hot store',
                    prompt:
                      'Subagent task: read evidence/pd-hot-regions.txt and say which store holds the hot regions.',
                    subagent_type: 'general-purpose',
                  },
                },
              ],
            },
            { text: 'The subagent found the hot read regions on store 4.' },
          ],
        },
        {
          when: 'Subagent task: read evidence/pd-hot-regions.txt',
          steps: [
            { tools: [read(root, 'evidence/pd-hot-regions.txt')] },
            { text: 'Store 4 holds the hot read regions.' },
          ],
        },
      ]),
  },
  {
    name: 'compaction',
    description: 'An investigation turn, /compact, then a turn on the summary that reads the alerts.',
    prompts: [FRESH_PROMPT, '/compact', 'INC-4821 next: check the alerts.'],
    script: (root) =>
      base([
        freshTurn(root),
        {
          when: 'INC-4821 next: check the alerts',
          steps: [{ tools: [read(root, 'meta/alerts.json')] }, { text: 'The alerts confirm store 4.' }],
        },
      ]),
  },
];
