/**
 * What the scripted model answers in `npm run demo:agent`: a small investigator for the demo
 * workspace. It really calls OpenCode's tools (read, grep, skill, todowrite, task, and a shell
 * command the workspace's opencode.json makes OpenCode ask about), so its turns leave real tool
 * parts for `/debug` to explain. Turns are chosen by a word of the user's message; anything else
 * is "what do we know".
 *
 * One story with the seeded conversation (demo/conversation.json): it ends with the cause found —
 * the missing index on `merchant_limits.merchant_id`, every payment's limit lookup scanning the
 * table's one region on store 4 — and the internal note drafted. A turn that continues it
 * (`knows`: the conversation before holds that finding) answers from what is already in its
 * context instead of reading the files again; in a new session, the same words start from the
 * evidence. One turn hands a check to a subagent (`task`), so the subagent's own report and the
 * way back to its parent's are in the demo.
 */
import type { Script, ScriptedStep, ScriptedTurn } from '../scripted-model/script';

/**
 * What the seeded conversation found, as its last reply words it: a turn that sees it continues
 * that investigation and refers to what it holds (a new session's own findings never read so).
 */
export const SEEDED_FINDING = 'cause found (missing index on `merchant_limits.merchant_id`';

/** The subagent's task, as the parent's `task` call hands it over (its first words start its turn). */
const SUBAGENT_TASK =
  'Subagent task: check that the index fix is the right one. Read sources/merchant_limits.sql and count the slow-log entries of digest 4f1c2a9e that scan merchant_limits; answer with the statement to run and what it changes.';

/** OpenCode's `read` tool call on a file of the demo workspace. */
type Read = (path: string, extra?: Record<string, unknown>) => { name: string; args: Record<string, unknown> };

const text = (...lines: string[]): ScriptedStep => ({ text: lines.join('\n') });

export function liveDemoScript(root: string): Script {
  const read: Read = (path, extra = {}) => ({
    name: 'read',
    args: { filePath: `${root}/${path}`, ...extra },
  });
  return {
    turns: [
      // The subagent's own turn first: its task's words would match the others.
      subagentTurn(root, read),
      ...knownTurns(),
      ...freshTurns(root, read),
      subagentHandOff(),
      clusterTurn(),
      whatWeKnow(),
      evidenceSummary(read),
    ],
    summary:
      'Summary of the investigation so far: INC-4821, payment timeouts from 02:13 UTC on prod-pay-tidb-hz1; cause: the missing index on merchant_limits.merchant_id (a full scan per payment, a read hotspot on store 4); fix approved: add idx_merchant_id; no change was made to the cluster.',
    title: 'INC-4821 live investigation',
    fallback:
      'Done for this turn. Ask what we know, about the slow queries, or to have a subagent double-check the fix.',
  };
}

/** Continuing the seeded investigation: everything below is in its context already. */
function knownTurns(): ScriptedTurn[] {
  return [
    {
      when: 'slow',
      knows: SEEDED_FINDING,
      steps: [
        text(
          'From the slow log already in this conversation (`evidence/slow-query.log`, read in full earlier — not read again):',
          '',
          '- 21 of its 31 entries are one statement, digest `4f1c2a9e…e8d7`: `SELECT limit_amount, daily_cap, currency FROM merchant_limits WHERE merchant_id = ?`.',
          '- Each has `Index_names: []` and `Process_keys: 31877`: a full scan of `merchant_limits`, Query_time up to 2.46 s.',
          '- `Stats: merchant_limits:pseudo`: the optimizer had no statistics either.',
          '',
          'So the slow queries are the cause we found: the missing index on `merchant_limits.merchant_id`. The fix stays `ALTER TABLE pay.merchant_limits ADD INDEX idx_merchant_id (merchant_id)` (DBA), then `ANALYZE TABLE`.',
        ),
      ],
    },
    {
      when: 'skill',
      knows: SEEDED_FINDING,
      steps: [
        text(
          'All three workspace skills are loaded in this conversation already (`tidb-clinic-diagnosis`, `slow-query-analysis`, `incident-report-writer`): loading one again would only add it to my context a second time.',
          '',
          'By the `slow-query-analysis` method the finding holds: one digest dominates, it uses no index, and the plan scans every key of the table.',
        ),
      ],
    },
    {
      // A longer turn (a plan first, the text a while later): there is time to press Stop.
      when: 'report',
      knows: SEEDED_FINDING,
      steps: [
        {
          reasoning: 'The internal note is in this conversation already: plan the report from it, read nothing again.',
          tools: [
            {
              name: 'todowrite',
              args: {
                todos: [
                  { content: 'Impact and timeline from the internal note', status: 'in_progress', priority: 'high' },
                  {
                    content: 'Cause: missing index on merchant_limits.merchant_id',
                    status: 'pending',
                    priority: 'high',
                  },
                  { content: 'Follow-ups and owners', status: 'pending', priority: 'medium' },
                ],
              },
            },
          ],
        },
        {
          delayMs: 6000,
          ...text(
            '## Incident report — INC-4821',
            '',
            '- **Impact:** hangzhou-pay payment API timeouts from 02:13 UTC, p99 up to 2.41 s, up to 4.7 % errors.',
            '- **Cause:** the 02:05 gateway deploy added a per-payment lookup on `merchant_limits` with no index on `merchant_id`; every lookup scans the table’s one region (2287016), a read hotspot on store 4.',
            '- **Mitigation:** add `idx_merchant_id` online (DBA), then `ANALYZE TABLE`; follower read until then. No gateway rollback needed.',
            '- **Follow-ups:** pre-deploy query review for new lookups (payments team).',
          ),
        },
      ],
    },
  ];
}

/** The subagent's session: the task's words start it; it reads in a context of its own. */
function subagentTurn(root: string, read: Read): ScriptedTurn {
  return {
    when: SUBAGENT_TASK.slice(0, 48),
    steps: [
      {
        tools: [
          read('sources/merchant_limits.sql'),
          { name: 'grep', args: { pattern: 'Digest: 4f1c2a9e', path: `${root}/evidence` } },
        ],
      },
      text(
        'No index on `merchant_id` (only `PRIMARY KEY (id)`); 21 slow-log entries of digest 4f1c2a9e, each with `Process_keys: 31877`. Run `ALTER TABLE pay.merchant_limits ADD INDEX idx_merchant_id (merchant_id)`: each lookup then reads one key.',
      ),
    ],
  };
}

/** "What do we know?" (any other words), continuing it: last, since it matches every message. */
function whatWeKnow(): ScriptedTurn {
  return {
    when: '',
    knows: SEEDED_FINDING,
    steps: [
      text(
        'What we know, from this conversation (nothing read again — it is all in my context):',
        '',
        '- **Cause:** the missing index on `merchant_limits.merchant_id`. Since the 02:05 gateway deploy every payment looks up its merchant limit, and each lookup scans the whole table in its one region (2287016) on store 4.',
        '- **Consequence, not cause:** the PD leader-transfer storm from 02:11 and tikv-4’s read pool CPU above 90 % from 02:13.',
        '- **Fix (approved):** `ALTER TABLE pay.merchant_limits ADD INDEX idx_merchant_id (merchant_id)` by the DBA, then `ANALYZE TABLE`.',
        '- **Done:** the internal note and the Chinese customer update are drafted above.',
        '',
        'Next: ask me to have a subagent double-check the fix, or to draft the incident report. Type `/debug` to see what fills my context.',
      ),
    ],
  };
}

/** A new session: the same words, starting from the evidence. */
function freshTurns(root: string, read: Read): ScriptedTurn[] {
  return [
    {
      when: 'slow',
      steps: [
        {
          reasoning: 'The slow log first: which statements, how long, how many keys scanned.',
          tools: [{ name: 'grep', args: { pattern: 'Query_time', path: `${root}/evidence` } }],
        },
        { tools: [read('evidence/slow-query.log', { offset: 1, limit: 80 })] },
        text(
          'The slow log shows the same statement again and again:',
          '',
          '- `SELECT limit_amount, daily_cap, currency FROM merchant_limits WHERE merchant_id = ?` — `Index_names: []`, `Process_keys: 31877`: a **full scan** of `merchant_limits` for every payment.',
          '- Query_time climbs from 0.36 s at 02:10 UTC to over 2 s, all on tikv-4.',
          '',
          'Likely cause: a missing index on `merchant_limits.merchant_id`. I have not run anything on the cluster.',
        ),
      ],
    },
    {
      when: 'skill',
      steps: [
        { tools: [{ name: 'skill', args: { name: 'tidb-clinic-diagnosis' } }] },
        text(
          'The **tidb-clinic-diagnosis** skill is loaded: it is now part of my context (see `/debug`, Skills & Knowledge).',
        ),
      ],
    },
    {
      // A longer turn, read file by file: there is time to press Stop.
      when: 'report',
      steps: [
        {
          reasoning: 'An incident report needs the incident record, the customer’s words and the hot regions.',
          tools: [read('issues/INC-4821.md')],
        },
        { delayMs: 2500, tools: [read('evidence/customer-report-zh.md')] },
        { delayMs: 2500, tools: [read('evidence/pd-hot-regions.txt')] },
        {
          delayMs: 1500,
          ...text(
            '## Incident report draft — INC-4821',
            '',
            '- **Impact:** payment API timeouts for hangzhou-pay from 02:13 UTC.',
            '- **Cause:** every payment’s `merchant_limits` lookup scans the table (no index on `merchant_id`), a read hotspot on store 4.',
            '- **Mitigation:** add the index online; no gateway rollback needed.',
          ),
        },
      ],
    },
  ];
}

/** A check handed to a subagent: its own session, its own report (and the way back). */
function subagentHandOff(): ScriptedTurn {
  return {
    when: 'subagent',
    steps: [
      {
        reasoning: 'A second look at the fix, in a context of its own: a subagent.',
        tools: [
          {
            name: 'task',
            args: { description: 'Check the index fix', prompt: SUBAGENT_TASK, subagent_type: 'general' },
          },
        ],
      },
      text(
        'The subagent confirms the fix: `merchant_limits` has no index on `merchant_id` (its primary key is `id`), and 21 slow-log entries of digest `4f1c2a9e…e8d7` scan all 31,877 keys.',
        '',
        '`ALTER TABLE pay.merchant_limits ADD INDEX idx_merchant_id (merchant_id)` turns each lookup into a one-key read. `/debug` shows what the subagent’s own context held: its report is one click from the task’s row.',
      ),
    ],
  };
}

/** A shell command the workspace's opencode.json makes OpenCode ask about (and the server refuses). */
function clusterTurn(): ScriptedTurn {
  return {
    when: 'cluster',
    steps: [
      {
        reasoning: 'Cluster facts would help; the runbook forbids touching the cluster, so the shell asks first.',
        tools: [{ name: 'bash', args: { command: 'tiup ctl:v7.5.1 pd store --pd http://pd-0:2379' } }],
      },
      text(
        'I asked to query PD for the stores; the server refused (its policy answers permission requests). I will stay with the collected evidence.',
      ),
    ],
  };
}

/** A new session's anything else: start from the evidence summary. */
function evidenceSummary(read: Read): ScriptedTurn {
  return {
    when: '',
    steps: [
      {
        reasoning: 'Start from the evidence summary: it says what was collected and where to look.',
        tools: [read('evidence/evidence_summary_for_agent.txt')],
      },
      text(
        'From the evidence summary (INC-4821, prod-pay-tidb-hz1):',
        '',
        '- **What broke:** payment API timeouts from about 02:13 UTC.',
        '- **Where to look:** the slow log (`evidence/slow-query.log`) and the TiKV gRPC p99 (`evidence/metrics/tikv_grpc_p99.json`).',
        '- **Next step:** ask me about the slow queries, or to load the diagnosis skill.',
        '',
        'Type `/debug` to see what this turn put in my context.',
      ),
    ],
  };
}
