/**
 * Generates a benchmark workspace: a session with about `liveTokens` of live context and three
 * times as much history before its last compaction — English and Chinese prose, log lines and
 * JSON tool payloads — plus a workspace folder. Deterministic for a given size.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sha256Hex } from '../src/node/auth';
import { createAscendingIds, seededRandom, type Random } from '../src/node/ids';
import { openSqlite } from '../src/node/storage/sqlite/sqlite-store';

export const BENCH_TOKEN = 'bench-token';
export const BENCH_WS = 'bench';
export const BENCH_SESSION = 'ses_bench_main';

const EN =
  'the store region leader latency hotspot query plan index scan backoff compaction raft apply pool cpu disk write read flow tikv tidb pd scheduler operator deploy gateway payment merchant limit table digest slow log metric panel alert window baseline spike'.split(
    ' ',
  );
const ZH =
  '客户报告支付接口超时数据库存储节点负载过高索引缺失查询全表扫描区域热点调度领导者迁移恢复方案建议时间线北京时间换算指标对齐'.split(
    '',
  );

function words(random: Random, n: number): string {
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(EN[random(EN.length)]!);
  return out.join(' ');
}

function chinese(random: Random, n: number): string {
  let out = '';
  for (let i = 0; i < n; i++) out += ZH[random(ZH.length)]! + (i % 17 === 16 ? '。' : '');
  return out;
}

function logLines(random: Random, n: number): string {
  const lines: string[] = [];
  for (let i = 0; i < n; i++) {
    lines.push(
      `${i + 1}: [2026-11-28T02:${String(random(60)).padStart(2, '0')}:${String(random(60)).padStart(2, '0')}Z] [WARN] [store=${1 + random(6)}] region=${2_280_000 + random(20_000)} ${words(random, 8)} took=${random(3000)}ms`,
    );
  }
  return lines.join('\n');
}

function jsonPayload(random: Random, n: number): string {
  return JSON.stringify(
    Array.from({ length: n }, (_, i) => ({
      ts: 1_795_829_400 + i * 60,
      store: 1 + random(6),
      p99: Number((random(2000) / 1000).toFixed(3)),
      labels: { instance: `tikv-${1 + random(6)}:20180`, type: 'kv_get' },
    })),
    null,
    1,
  );
}

export interface Generated {
  dbPath: string;
  root: string;
  messages: number;
  approxLiveChars: number;
}

/** Builds `dir/bench.db` and `dir/ws`. */
export async function generateBenchWorkspace(dir: string, liveTokens: number): Promise<Generated> {
  const random = seededRandom(liveTokens);
  const ids = createAscendingIds(seededRandom(liveTokens + 1));
  const root = join(dir, 'ws');
  mkdirSync(join(root, '.opencode/skills/tidb-clinic-diagnosis'), { recursive: true });
  mkdirSync(join(root, 'evidence'), { recursive: true });
  writeFileSync(join(root, 'AGENTS.md'), `# Agent\n${words(random, 400)}\n`);
  for (const name of ['tidb-clinic-diagnosis']) {
    writeFileSync(
      join(root, `.opencode/skills/${name}/SKILL.md`),
      `---\nname: ${name}\ndescription: ${words(random, 20)}\n---\n${words(random, 600)}\n`,
    );
  }
  const evidence = ['slow.log', 'metrics.json', 'report-zh.md', 'summary.txt'];
  writeFileSync(join(root, 'evidence/slow.log'), logLines(random, 200));
  writeFileSync(join(root, 'evidence/metrics.json'), jsonPayload(random, 150));
  writeFileSync(join(root, 'evidence/report-zh.md'), chinese(random, 3000));
  writeFileSync(join(root, 'evidence/summary.txt'), words(random, 1500));

  const dbPath = join(dir, 'bench.db');
  const store = await openSqlite(dbPath);
  const { db } = store;
  await store.insertUser('usr_bench', 'Bench');
  await store.insertTokenHash(sha256Hex(BENCH_TOKEN), 'usr_bench');
  await store.insertWorkspace({ id: BENCH_WS, name: 'Benchmark', root_path: 'ws', created_at: 1 });
  await store.addMember(BENCH_WS, 'usr_bench');
  const insert = db.prepare(
    'INSERT INTO messages_v2 (id, workspace_id, session_id, time_created, time_updated, info, parts) VALUES (?, ?, ?, ?, ?, ?, ?)',
  );
  const usage = db.prepare(
    "INSERT INTO interaction_token_usage (workspace_id, session_id, source, context_used, context_size, created_at) VALUES (?, ?, 'acp', ?, 2000000, ?)",
  );
  let clock = 1_795_800_000_000;
  let messages = 0;
  let parent = '';
  let liveChars = 0;
  const put = (role: 'user' | 'assistant', parts: Record<string, unknown>[], extra: Record<string, unknown> = {}) => {
    clock += 1000;
    const id = ids('msg', clock);
    const info =
      role === 'user'
        ? { role, time: { created: clock } }
        : {
            role,
            parentID: parent,
            finish: 'tool-calls',
            tokens: { input: 3, output: 100, reasoning: 0, cache: { read: 1000, write: 10 } },
            time: { created: clock, completed: clock + 500 },
            ...extra,
          };
    const withIds = parts.map((p, i) => ({ id: ids('prt', clock) + i, ...p }));
    insert.run(id, BENCH_WS, BENCH_SESSION, clock, clock, JSON.stringify(info), JSON.stringify(withIds));
    if (role === 'user') parent = id;
    messages++;
    return { id, chars: JSON.stringify(withIds).length };
  };
  const read = (file: string, output: string, n: number) => ({
    type: 'tool',
    callID: `call_${n}`,
    tool: 'read',
    state: {
      status: 'completed',
      input: { filePath: join(root, file) },
      output,
      title: file,
      metadata: {},
      time: { start: clock, end: clock + 5 },
    },
  });
  /** One exchange: a question and an answer with tool calls; returns its size in characters. */
  const exchange = (n: number): number => {
    let chars = put('user', [{ type: 'text', text: n % 3 === 0 ? chinese(random, 80) : words(random, 60) }]).chars;
    const tools: Record<string, unknown>[] = [];
    const kind = n % 4;
    if (kind === 0) tools.push(read(`evidence/${evidence[random(evidence.length)]}`, logLines(random, 40), n));
    if (kind === 1)
      tools.push({
        type: 'tool',
        callID: `b${n}`,
        tool: 'bash',
        state: {
          status: 'completed',
          input: { command: `grep -c took evidence/slow.log` },
          output: jsonPayload(random, 30),
          title: 'grep',
          metadata: {},
          time: { start: 1, end: 2 },
        },
      });
    if (kind === 2) tools.push(read('evidence/report-zh.md', chinese(random, 1200), n));
    if (kind === 3)
      tools.push({
        type: 'tool',
        callID: `s${n}`,
        tool: 'skill',
        state: {
          status: 'completed',
          input: { name: 'tidb-clinic-diagnosis' },
          output: words(random, 500),
          title: 'Loaded skill',
          metadata: {},
          time: { start: 1, end: 2 },
        },
      });
    chars += put('assistant', [
      { type: 'step-start' },
      { type: 'reasoning', text: words(random, 40) },
      ...tools,
      { type: 'text', text: words(random, 120) },
      { type: 'step-finish', tokens: {} },
    ]).chars;
    return chars;
  };

  const write = db.transaction(() => {
    const target = liveTokens * 4;
    let n = 0;
    let history = 0;
    while (history < target * 3) history += exchange(n++);
    const request = put('user', [{ type: 'compaction', auto: true }]);
    put('assistant', [{ type: 'text', text: `## Goal\n${words(random, 300)}` }], {
      summary: true,
      finish: 'stop',
      parentID: request.id,
    });
    while (liveChars < target) {
      liveChars += exchange(n++);
      if (n % 10 === 0) usage.run(BENCH_WS, BENCH_SESSION, Math.round(liveChars / 3.5) + 12_000, clock + 1);
    }
    usage.run(BENCH_WS, BENCH_SESSION, Math.round(liveChars / 3.5) + 12_000, clock + 1);
  });
  write();
  db.pragma('wal_checkpoint(TRUNCATE)');
  await store.close();
  return { dbPath, root, messages, approxLiveChars: liveChars };
}
