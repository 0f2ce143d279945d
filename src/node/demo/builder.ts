/**
 * Builds the demo: copies demo/workspace into a folder beside the database and expands
 * demo/conversation.json into OpenCode MessageV2 rows and ACP usage rows. Deterministic apart
 * from the absolute workspace path and the token.
 */
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sha256Hex } from '../auth';
import { createAscendingIds, seededRandom } from '../ids';
import {
  addMember,
  insertMessage,
  insertTokenHash,
  insertUsage,
  insertUser,
  insertWorkspace,
  openWritable,
  type Db,
} from '../storage/store';
import { readCallText, readToolOutput, skillToolOutput } from './opencode-shapes';

export const DEMO_WORKSPACE_ID = 'demo';
export const DEMO_USER_ID = 'usr_demo';
export const DEMO_DIR = fileURLToPath(new URL('../../../demo/', import.meta.url));

type ToolSpec = {
  read?: string;
  offset?: number;
  limit?: number;
  skill?: string;
  bash?: string;
  grep?: { pattern: string; path: string };
  glob?: { pattern: string; path: string };
  description?: string;
  output?: string;
  status?: 'completed' | 'error' | 'running';
  error?: string;
  pruned?: boolean;
  tag?: string;
};

type Step =
  | {
      user: string;
      workspaceContext?: { source: string; label: string; text?: string; file?: string }[];
      attachments?: ({ image: string } | { file: string })[];
    }
  | { assistant: { reasoning?: string; tools?: ToolSpec[]; text?: string } }
  | { compaction: true; auto?: boolean; summary: string };

interface Conversation {
  model: { providerID: string; modelID: string; contextSize: number };
  runtimeBaselineTokens: number;
  sessions: { id: string; start: string; title: string; steps: Step[] }[];
}

export interface SeedResult {
  workspaceId: string;
  root: string;
  sessions: string[];
}

/** Creates the demo database at dbPath. Refuses to touch an existing one. */
export function seedDemoDatabase(dbPath: string, token: string): SeedResult {
  if (existsSync(dbPath)) throw new Error(`refusing to seed an existing database: ${dbPath}`);
  mkdirSync(dirname(resolve(dbPath)), { recursive: true });
  const db = openWritable(dbPath);
  try {
    return seedDemo(db, dbPath, token);
  } finally {
    db.close();
  }
}

export function seedDemo(db: Db, dbPath: string, token: string): SeedResult {
  const relativeRoot = join('workspaces', DEMO_WORKSPACE_ID);
  const root = resolve(dirname(resolve(dbPath)), relativeRoot);
  rmSync(root, { recursive: true, force: true });
  cpSync(join(DEMO_DIR, 'workspace'), root, { recursive: true });

  const conversation = JSON.parse(
    readFileSync(join(DEMO_DIR, 'conversation.json'), 'utf8'),
  ) as Conversation;

  const seed = db.transaction(() => {
    insertUser(db, DEMO_USER_ID, 'Demo operator');
    insertTokenHash(db, sha256Hex(token), DEMO_USER_ID);
    insertWorkspace(db, {
      id: DEMO_WORKSPACE_ID,
      name: 'INC-4821 · prod-pay-tidb-hz1 payment timeouts',
      root_path: relativeRoot,
      created_at: Date.parse('2026-11-27T09:00:00Z'),
    });
    addMember(db, DEMO_WORKSPACE_ID, DEMO_USER_ID);
    conversation.sessions.forEach((session, index) => {
      const writer = new SessionWriter(db, root, conversation, session.id, Date.parse(session.start));
      writer.write(session.steps);
      // The investigated session gets an evidence post-pass row newer than its last ACP row.
      if (index === conversation.sessions.length - 1) writer.postpass();
    });
  });
  seed();
  return { workspaceId: DEMO_WORKSPACE_ID, root, sessions: conversation.sessions.map((s) => s.id) };
}

/** Expands one session's steps; keeps a rough running size of the live context for usage rows. */
class SessionWriter {
  private readonly nextId = createAscendingIds(seededRandom(4821));
  private clock: number;
  private lastUserId = '';
  private liveChars = 0;
  private cost = 0;
  private previousUsed = 0;

  constructor(
    private readonly db: Db,
    private readonly root: string,
    private readonly conversation: Conversation,
    private readonly sessionId: string,
    start: number,
  ) {
    this.clock = start;
  }

  write(steps: Step[]): void {
    for (const step of steps) {
      if ('user' in step) this.user(step);
      else if ('assistant' in step) this.assistant(step.assistant);
      else this.compaction(step.summary, step.auto ?? true);
    }
  }

  private tick(ms: number): number {
    this.clock += ms;
    return this.clock;
  }

  private user(step: Extract<Step, { user: string }>): void {
    const time = this.tick(45_000);
    const id = this.nextId('msg', time);
    const parts: Record<string, unknown>[] = [{ type: 'text', text: step.user }];
    if (step.workspaceContext) {
      const sections = step.workspaceContext.map((section) => {
        const body = section.file
          ? readFileSync(join(this.root, section.file), 'utf8').trim()
          : (section.text ?? '');
        return `<section source="${section.source}" label="${section.label}">\n${body}\n</section>`;
      });
      parts.push({
        type: 'text',
        synthetic: true,
        text: `<workspace-context>\n${sections.join('\n')}\n</workspace-context>`,
      });
    }
    for (const attachment of step.attachments ?? []) {
      if ('image' in attachment) {
        const bytes = readFileSync(join(DEMO_DIR, 'attachments', attachment.image));
        parts.push({
          type: 'file',
          mime: 'image/png',
          filename: attachment.image,
          url: `data:image/png;base64,${bytes.toString('base64')}`,
        });
      } else {
        const absolute = join(this.root, attachment.file);
        const mention = `@${attachment.file}`;
        parts.push(
          { type: 'text', synthetic: true, text: readCallText(absolute) },
          { type: 'text', synthetic: true, text: readToolOutput(this.root, attachment.file) },
          {
            type: 'file',
            mime: 'text/plain',
            filename: attachment.file.split('/').pop(),
            url: `file://${absolute}`,
            source: { type: 'file', path: attachment.file, text: { value: mention, start: 0, end: mention.length } },
          },
        );
      }
    }
    this.persist(id, time, time, { role: 'user', time: { created: time }, agent: 'build', model: this.model() }, parts);
    this.lastUserId = id;
  }

  private assistant(spec: { reasoning?: string; tools?: ToolSpec[]; text?: string }): void {
    const created = this.tick(4_000);
    const id = this.nextId('msg', created);
    const parts: Record<string, unknown>[] = [{ type: 'step-start', snapshot: hexOf(created) }];
    if (spec.reasoning) {
      parts.push({ type: 'reasoning', text: spec.reasoning, time: { start: created + 200, end: created + 900 } });
    }
    let interrupted = false;
    for (const tool of spec.tools ?? []) {
      const part = this.toolPart(tool, created);
      interrupted ||= tool.status === 'running';
      parts.push(part);
    }
    if (spec.text) parts.push({ type: 'text', text: spec.text, time: { start: created + 1000, end: created + 6000 } });
    const completed = this.tick(interrupted ? 2_000 : 9_000);
    const used = this.contextUsed(parts);
    const tokens = {
      input: 3,
      output: Math.ceil((spec.text?.length ?? 0) / 4) + 40 * (spec.tools?.length ?? 0),
      reasoning: 0,
      cache: { read: this.previousUsed, write: Math.max(0, used - this.previousUsed - 3) },
    };
    const finish = spec.tools?.length ? 'tool-calls' : 'stop';
    if (!interrupted) parts.push({ type: 'step-finish', reason: finish, snapshot: hexOf(completed), cost: 0.0123, tokens });
    const info: Record<string, unknown> = {
      role: 'assistant',
      parentID: this.lastUserId,
      ...this.model(),
      mode: 'build',
      agent: 'build',
      path: { cwd: this.root, root: this.root },
      cost: 0.0123,
      tokens,
      time: interrupted ? { created } : { created, completed },
      ...(interrupted ? {} : { finish }),
    };
    this.persist(id, created, completed, info, parts);
    this.recordUsage(used, completed + 50);
  }

  private toolPart(tool: ToolSpec, created: number): Record<string, unknown> {
    const start = created + 1_000;
    const end = start + 400;
    let name: string;
    let input: Record<string, unknown>;
    let output: string;
    let title: string;
    const metadata: Record<string, unknown> = { truncated: false };
    if (tool.read) {
      name = 'read';
      input = { filePath: join(this.root, tool.read) };
      if (tool.offset !== undefined) Object.assign(input, { offset: tool.offset, limit: tool.limit });
      output = readToolOutput(this.root, tool.read, tool.offset, tool.limit);
      title = tool.read;
    } else if (tool.skill) {
      name = 'skill';
      input = { name: tool.skill };
      const skillDir = join(this.root, '.opencode', 'skills', tool.skill);
      const files = listFiles(skillDir).filter((file) => file !== 'SKILL.md');
      output = skillToolOutput(this.root, tool.skill, files);
      title = `Loaded skill: ${tool.skill}`;
      Object.assign(metadata, { name: tool.skill, dir: skillDir });
    } else if (tool.bash) {
      name = 'bash';
      input = { command: tool.bash, description: tool.description ?? tool.bash };
      output = tool.output ?? '';
      title = tool.bash;
      Object.assign(metadata, { output: output.slice(0, 200), exit: 0, description: input.description });
    } else if (tool.grep || tool.glob) {
      name = tool.grep ? 'grep' : 'glob';
      const query = (tool.grep ?? tool.glob)!;
      input = { pattern: query.pattern, path: join(this.root, query.path) };
      output = tool.output ?? '';
      title = query.pattern;
    } else {
      throw new Error(`demo tool step without a kind: ${JSON.stringify(tool)}`);
    }
    if (tool.tag) metadata.investibook = { source: tool.tag };
    const callID = `toolu_${this.nextId('call', created).slice(5, 25)}`;
    const status = tool.status ?? 'completed';
    if (status === 'error') {
      return { type: 'tool', callID, tool: name, state: { status, input, error: tool.error ?? 'failed', time: { start, end } } };
    }
    if (status === 'running') {
      return { type: 'tool', callID, tool: name, state: { status, input, title, time: { start } } };
    }
    const time = tool.pruned ? { start, end, compacted: end + 600_000 } : { start, end };
    return { type: 'tool', callID, tool: name, state: { status, input, output, title, metadata, time } };
  }

  private compaction(summary: string, auto: boolean): void {
    const time = this.tick(30_000);
    const userId = this.nextId('msg', time);
    this.persist(userId, time, time, { role: 'user', time: { created: time }, agent: 'build', model: this.model() }, [
      { type: 'compaction', auto },
    ]);
    const created = this.tick(500);
    const completed = this.tick(21_000);
    const tokens = { input: 3, output: Math.ceil(summary.length / 4), reasoning: 0, cache: { read: 0, write: this.previousUsed } };
    this.persist(
      this.nextId('msg', created),
      created,
      completed,
      {
        role: 'assistant',
        parentID: userId,
        ...this.model(),
        mode: 'compaction',
        agent: 'compaction',
        summary: true,
        path: { cwd: this.root, root: this.root },
        cost: 0.0912,
        tokens,
        time: { created, completed },
        finish: 'stop',
      },
      [
        { type: 'step-start' },
        { type: 'text', text: summary, time: { start: created + 1000, end: completed - 100 } },
        { type: 'step-finish', reason: 'stop', cost: 0.0912, tokens },
      ],
    );
    this.liveChars = 0;
    this.lastUserId = userId;
    this.liveChars += summary.length + 40;
  }

  private model() {
    return { providerID: this.conversation.model.providerID, modelID: this.conversation.model.modelID };
  }

  /** A plausible ACP `used`: the runtime's own prompt and tools plus ~3.6 characters a token. */
  private contextUsed(parts: Record<string, unknown>[]): number {
    for (const part of parts) this.liveChars += JSON.stringify(part).length;
    return this.conversation.runtimeBaselineTokens + Math.round(this.liveChars / 3.6);
  }

  private recordUsage(used: number, at: number): void {
    this.cost += 0.0123 + used * 0.0000003;
    this.previousUsed = used;
    insertUsage(this.db, {
      workspaceId: DEMO_WORKSPACE_ID,
      sessionId: this.sessionId,
      source: 'acp',
      contextUsed: used,
      contextSize: this.conversation.model.contextSize,
      costAmount: Math.round(this.cost * 10_000) / 10_000,
      costCurrency: 'USD',
      createdAt: at,
    });
  }

  private persist(id: string, created: number, updated: number, info: unknown, parts: Record<string, unknown>[]): void {
    const withIds = parts.map((part) => ({ id: this.nextId('prt', created), ...part }));
    insertMessage(this.db, {
      id,
      workspaceId: DEMO_WORKSPACE_ID,
      sessionId: this.sessionId,
      timeCreated: created,
      timeUpdated: updated,
      info,
      parts: withIds,
    });
    if ('user' === (info as { role: string }).role) {
      for (const part of parts) this.liveChars += JSON.stringify(part).length;
    }
  }

  /** Called once the session is written: a non-ACP row newer than the last ACP row. */
  postpass(): void {
    insertUsage(this.db, {
      workspaceId: DEMO_WORKSPACE_ID,
      sessionId: this.sessionId,
      source: 'evidence_postpass',
      contextUsed: 8123,
      contextSize: 128000,
      costAmount: 0.0061,
      costCurrency: 'USD',
      createdAt: this.tick(120_000),
    });
  }
}

function listFiles(dir: string, prefix = ''): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? listFiles(join(dir, entry.name), `${prefix}${entry.name}/`)
      : [`${prefix}${entry.name}`],
  );
}

function hexOf(n: number): string {
  return (n * 2654435761).toString(16).slice(-12);
}
