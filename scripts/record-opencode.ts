/**
 * npm run record:opencode [-- NAME…]: records the scenarios of test/recording/scenarios.ts from
 * the real OpenCode runtime. For each one it builds the recording workspace in a temporary
 * folder, starts the scripted model (which records every request it receives), runs the pinned
 * `opencode acp` against it through the project's ACP client, and writes
 * test/fixtures/opencode/NAME.json: the session export, the ACP usage updates and prompt
 * results, a summary of every model request and the last request in full. Tests use these
 * recordings offline.
 */
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { ContentBlock, SessionUpdate } from '@agentclientprotocol/sdk';
import { readEnv } from '../src/node/env';
import { AcpProcess, allowPermission, rejectPermission } from '../src/node/agent/acp-process';
import { exportSession } from '../src/node/agent/opencode/export-session';
import type { SessionExport } from '../src/node/agent/opencode/session-export';
import { recordDefinitions } from '../src/node/agent/opencode/runtime-definitions';
import { childSessions, sessionUses } from '../src/node/agent/opencode/session-runtime';
import {
  ensureOpencode,
  OPENCODE_VERSION,
  opencodeEnv,
  SCRIPTED_SMALL_MODEL,
  writeScriptedConfig,
} from '../src/node/agent/opencode/install';
import { PROJECT_ROOT } from '../src/node/project';
import type { ChatRequest } from '../src/node/scripted-model/prompt-tokens';
import { startScriptedModel, type RecordedRequest } from '../src/node/scripted-model/server';
import { SCENARIOS, type PromptSpec, type Scenario } from '../test/recording/scenarios';
import { buildRecordingWorkspace, treeDigest } from '../test/recording/workspace';

const OUT = {
  fixtures: join(PROJECT_ROOT, 'test', 'fixtures', 'opencode'),
  demo: join(PROJECT_ROOT, 'demo', 'recordings'),
};

async function requireRipgrep(): Promise<void> {
  try {
    await promisify(execFile)('rg', ['--version']);
  } catch {
    throw new Error("OpenCode's skill tool needs ripgrep on PATH: apt-get install -y ripgrep");
  }
}

const settle = (ms: number) => new Promise((done) => setTimeout(done, ms));

async function record(scenario: Scenario, bin: string): Promise<string> {
  const tmp = mkdtempSync(join(tmpdir(), `investibook-record-${scenario.name}-`));
  const root = join(tmp, 'ws');
  if (scenario.workspace === 'demo') cpSync(join(PROJECT_ROOT, 'demo', 'workspace'), root, { recursive: true });
  else buildRecordingWorkspace(root, scenario.workspace);
  const digest = treeDigest(root);
  const requests: RecordedRequest[] = [];
  const model = await startScriptedModel({
    script: scenario.script(root),
    smallModels: [SCRIPTED_SMALL_MODEL],
    onRequest: (request) => {
      requests.push(request);
      // A debugging aid: every request in full, one file each.
      const keep = readEnv().INVESTIBOOK_RECORD_REQUESTS;
      if (keep) writeFileSync(join(keep, `${scenario.name}-${request.seq}.json`), JSON.stringify(request, null, 1));
    },
    ...(scenario.tokenizer ? { encoding: scenario.tokenizer } : {}),
    ...(scenario.family ? { family: scenario.family } : {}),
  });
  const env = opencodeEnv(join(tmp, 'home'));
  const config = {
    baseURL: model.url,
    contextLimit: scenario.contextLimit,
    prune: scenario.prune,
    ...(scenario.modelId ? { modelId: scenario.modelId } : {}),
    ...(scenario.mcp ? { extra: { mcp: scenario.mcp } } : {}),
  };
  writeScriptedConfig(env, config);
  const agent = await AcpProcess.start({
    command: bin,
    args: ['acp'],
    cwd: root,
    env,
    // The operator allows what the agent asks for, except the commands the scenario refuses.
    onPermission: async (request) => {
      const input = request.toolCall.rawInput as { command?: unknown } | undefined;
      const command = typeof input?.command === 'string' ? input.command : '';
      return scenario.refuse?.test(command) ? rejectPermission(request) : allowPermission(request);
    },
  });
  try {
    const sessionId = await agent.newSession(root);
    const usageUpdates: unknown[] = [];
    const promptResults: unknown[] = [];
    for (const [index, raw] of scenario.prompts.entries()) {
      const spec: PromptSpec = typeof raw === 'string' ? { text: raw } : raw;
      const blocks: ContentBlock[] = [{ type: 'text', text: spec.text }];
      if (spec.context) blocks.push({ type: 'text', text: spec.context, annotations: { audience: ['assistant'] } });
      for (const image of spec.images ?? []) {
        const data = (
          image.startsWith('ws:') ? readFileSync(join(root, image.slice(3))) : readFileSync(join(PROJECT_ROOT, image))
        ).toString('base64');
        // A pasted screenshot: only its name travels with it.
        blocks.push({ type: 'image', data, mimeType: 'image/png', uri: `file:///${image.split('/').pop()}` });
      }
      for (const path of spec.attach ?? []) {
        blocks.push({ type: 'resource_link', uri: `file://${root}/${path}`, name: path.split('/').pop()! });
      }
      let cancelled = false;
      const onUpdate = (update: SessionUpdate) => {
        if (update.sessionUpdate === 'usage_update') {
          usageUpdates.push({
            prompt: index,
            at: Date.now(),
            used: update.used,
            size: update.size,
            cost: update.cost ?? null,
          });
        }
        if (
          spec.cancelOnTool &&
          !cancelled &&
          (update.sessionUpdate === 'tool_call' || update.sessionUpdate === 'tool_call_update') &&
          update.status === 'in_progress'
        ) {
          cancelled = true;
          // Let the command start, so the interrupted tool has output to keep.
          setTimeout(() => void agent.cancel(sessionId), 1500);
        }
      };
      try {
        const result = await agent.prompt(sessionId, blocks, onUpdate);
        promptResults.push({ prompt: index, text: spec.text, ...result });
      } catch (error) {
        // A provider error ends the turn with a JSON-RPC error: part of what is recorded.
        const { code, message, data } = error as { code?: number; message: string; data?: unknown };
        promptResults.push({ prompt: index, text: spec.text, error: { code, message, data } });
      }
      // Title generation and pruning run in the background after a turn.
      await settle(1500);
    }
    const exported = await exportSession({ command: bin, args: ['export', sessionId], cwd: root, env });
    // The subagents' sessions its task calls made: exported apart (OpenCode's export holds one session).
    const children: { sessionId: string; export: SessionExport; lastRequest: ChatRequest | null }[] = [];
    for (const child of childSessions(exported)) {
      const read = await exportSession({ command: bin, args: ['export', child], cwd: root, env });
      children.push({ sessionId: child, export: read, lastRequest: lastRequestOf(requests, read) });
    }
    // OpenCode's own definitions for every agent and model of these sessions, as the bridge records them.
    const runtime = await recordDefinitions(
      [
        { sessionId, uses: sessionUses(exported) },
        ...children.map((c) => ({ sessionId: c.sessionId, uses: sessionUses(c.export) })),
      ],
      { launch: async (program) => ({ ...program, cwd: root, env }), serve: { command: bin, args: ['serve'] } },
    );
    for (const r of runtime) if (r.definitions.failed) throw new Error(`${scenario.name}: ${r.definitions.failed}`);
    const recordedAt = Date.now();
    const main = requests.filter((r) => r.kind !== 'title' && !children.some((c) => isChildRequest(r.body, c.export)));
    const recording = {
      about:
        'Recorded from the real OpenCode runtime by npm run record:opencode (scripts/record-opencode.ts). Do not edit: re-record.',
      scenario: scenario.name,
      description: scenario.description,
      opencode: OPENCODE_VERSION,
      recordedAt: new Date().toISOString(),
      workspace: { kind: scenario.workspace, root, digest },
      config: {
        contextLimit: config.contextLimit ?? 200_000,
        prune: config.prune ?? false,
        tokenizer: scenario.family?.encoding ?? scenario.tokenizer ?? 'o200k_base',
        ...(scenario.family ? { family: scenario.family } : {}),
      },
      sessionId,
      acp: { usageUpdates, promptResults },
      requests: requests.map((r) => ({
        seq: r.seq,
        kind: r.kind,
        messages: r.body.messages.length,
        usage: r.usage,
        charged: r.charged,
      })),
      lastRequest: main.at(-1)?.body ?? null,
      export: exported,
      runtime: runtime.map((r) => ({ ...r, recordedAt })),
      ...(children.length ? { children } : {}),
    };
    mkdirSync(OUT[scenario.output], { recursive: true });
    const file = join(OUT[scenario.output], `${scenario.name}.json`);
    writeFileSync(file, `${JSON.stringify(recording, null, 1)}\n`);
    return file;
  } finally {
    await agent.close();
    await model.close();
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** The first user message's own words of a session's export. */
function firstPrompt(exported: SessionExport): string {
  const user = exported.messages.find((m) => m.info.role === 'user');
  const text = user?.parts.find((p) => p.type === 'text' && typeof p.text === 'string');
  return typeof text?.text === 'string' ? text.text : '';
}

/** A request of a subagent's session: its first user message is the child's prompt. */
function isChildRequest(body: ChatRequest, child: SessionExport): boolean {
  const prompt = firstPrompt(child);
  const user = body.messages.find((m) => m.role === 'user');
  const words = typeof user?.content === 'string' ? user.content : (user?.content?.find((p) => p.text)?.text ?? '');
  return prompt !== '' && words === prompt;
}

function lastRequestOf(requests: readonly RecordedRequest[], child: SessionExport): ChatRequest | null {
  return requests.filter((r) => r.kind !== 'title' && isChildRequest(r.body, child)).at(-1)?.body ?? null;
}

const wanted = process.argv.slice(2);
const chosen = wanted.length ? SCENARIOS.filter((s) => wanted.includes(s.name)) : SCENARIOS;
if (wanted.length && chosen.length !== wanted.length) {
  console.error(`unknown scenario; known: ${SCENARIOS.map((s) => s.name).join(', ')}`);
  process.exit(2);
}
await requireRipgrep();
const bin = await ensureOpencode((line) => console.log(line));
for (const scenario of chosen) {
  const started = Date.now();
  const file = await record(scenario, bin);
  console.log(`recorded ${scenario.name} in ${((Date.now() - started) / 1000).toFixed(1)} s → ${file}`);
}
