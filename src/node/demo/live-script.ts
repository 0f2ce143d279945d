/**
 * What the scripted model answers in `npm run demo:agent`: a small investigator for the demo
 * workspace. It really calls OpenCode's tools (read, grep, skill, and a shell command the
 * workspace's opencode.json makes OpenCode ask about), so every turn leaves real tool parts
 * for `/debug` to explain. Turns are chosen by a word of the user's message; anything else gets
 * the evidence summary.
 */
import type { Script, ScriptedStep } from '../scripted-model/script';

export function liveDemoScript(root: string): Script {
  const read = (path: string, extra: Record<string, unknown> = {}) => ({
    name: 'read',
    args: { filePath: `${root}/${path}`, ...extra },
  });
  const summary: ScriptedStep[] = [
    {
      reasoning: 'Start from the evidence summary: it says what was collected and where to look.',
      tools: [read('evidence/evidence_summary_for_agent.txt')],
    },
    {
      text: [
        'From the evidence summary (INC-4821, prod-pay-tidb-hz1):',
        '',
        '- **What broke:** payment API timeouts from about 02:11 UTC.',
        '- **Where to look:** the slow log (`evidence/slow-query.log`) and the TiKV gRPC p99 (`evidence/metrics/tikv_grpc_p99.json`).',
        '- **Next step:** ask me about the slow queries, or to load the diagnosis skill.',
        '',
        'Type `/debug` to see what this turn put in my context.',
      ].join('\n'),
    },
  ];
  return {
    turns: [
      {
        when: 'slow',
        steps: [
          {
            reasoning: 'The slow log first: which statements, how long, how many rows scanned.',
            tools: [{ name: 'grep', args: { pattern: 'Query_time', path: `${root}/evidence` } }],
          },
          { tools: [read('evidence/slow-query.log', { offset: 1, limit: 80 })] },
          {
            text: [
              'The slow log shows the same statement again and again:',
              '',
              '- `SELECT … FROM payment_orders WHERE merchant_id = ? AND status = ?` — a **full table scan**,',
              '  Query_time 1.8–2.4 s from 02:11 UTC, millions of rows examined.',
              '- It lines up with the TiKV gRPC p99 spike: the scans saturate the store it hits.',
              '',
              'Likely cause: a missing index on `(merchant_id, status)`. I have not run anything on the cluster.',
            ].join('\n'),
          },
        ],
      },
      {
        when: 'skill',
        steps: [
          { tools: [{ name: 'skill', args: { name: 'tidb-clinic-diagnosis' } }] },
          {
            text: 'The **tidb-clinic-diagnosis** skill is loaded: it is now part of my context (see `/debug`, Skills & Knowledge).',
          },
        ],
      },
      {
        when: 'cluster',
        steps: [
          {
            reasoning: 'Cluster facts would help; the runbook forbids touching the cluster, so the shell asks first.',
            tools: [{ name: 'bash', args: { command: 'tiup ctl:v7.5.1 pd store --pd http://pd-0:2379' } }],
          },
          {
            text: 'I asked to query PD for the stores; the server refused (its policy answers permission requests). I will stay with the collected evidence.',
          },
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
            text: [
              '## Incident report draft — INC-4821',
              '',
              '- **Impact:** payment API timeouts for hangzhou-pay from 02:11 UTC.',
              '- **Cause:** a full scan of `payment_orders` (no index on `merchant_id, status`) saturating one TiKV store.',
              '- **Mitigation:** add the index online; no gateway rollback needed.',
            ].join('\n'),
          },
        ],
      },
      { when: '', steps: summary },
    ],
    summary:
      'Summary of the investigation so far: INC-4821, payment timeouts from 02:11 UTC on prod-pay-tidb-hz1; the slow log points at a full scan of payment_orders; no change was made to the cluster.',
    title: 'INC-4821 live investigation',
    fallback: 'Done for this turn. Ask about the slow queries, the skill, or the cluster.',
  };
}
