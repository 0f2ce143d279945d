/**
 * npm run record:claude-code [-- NAME…]: records the scenarios of
 * test/recording/claude-code-scenarios.ts from the real Claude Code (the pinned
 * @agentclientprotocol/claude-agent-acp, over ACP). For each one it builds the recording
 * workspace in a temporary folder with Claude Code's layout (CLAUDE.md, .claude/skills), starts
 * the scripted model (its Messages API records every request), runs the adapter against it
 * with a private HOME, and writes test/fixtures/claude-code/NAME.json: the session's transcript
 * lines as Claude Code wrote them (subagents' too), the ACP usage updates, a summary of every
 * model request with what the endpoint counted, and the last main request in full.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SessionUpdate } from '@agentclientprotocol/sdk';
import { AcpProcess, allowPermission } from '../src/node/agent/acp-process';
import { CLAUDE_AGENT_ACP_VERSION, claudeCodeEnv, ensureClaudeCode } from '../src/node/agent/claude-code/install';
import { PROJECT_ROOT } from '../src/node/project';
import type { RecordedMessagesRequest } from '../src/node/scripted-model/anthropic';
import { startScriptedModel } from '../src/node/scripted-model/server';
import { CLAUDE_CODE_SCENARIOS, type ClaudeCodeScenario } from '../test/recording/claude-code-scenarios';
import { buildRecordingWorkspace, treeDigest } from '../test/recording/workspace';

const OUT = join(PROJECT_ROOT, 'test', 'fixtures', 'claude-code');
const MODEL = 'claude-scripted';
const SMALL_MODEL = 'claude-scripted-haiku';

/** The recording workspace as Claude Code reads it: AGENTS.md as CLAUDE.md, the skills under .claude/skills. */
function claudeLayout(root: string): void {
  cpSync(join(root, 'AGENTS.md'), join(root, 'CLAUDE.md'));
  if (existsSync(join(root, '.opencode', 'skills')))
    cpSync(join(root, '.opencode', 'skills'), join(root, '.claude', 'skills'), { recursive: true });
}

/** Every transcript Claude Code wrote under HOME, by path relative to its projects folder. */
function transcripts(home: string): Record<string, string[]> {
  const base = join(home, '.claude', 'projects');
  const out: Record<string, string[]> = {};
  const walk = (dir: string, rel: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      const name = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) walk(path, name);
      else if (entry.name.endsWith('.jsonl'))
        out[name] = readFileSync(path, 'utf8')
          .split('\n')
          .filter((line) => line.trim() !== '');
    }
  };
  if (existsSync(base)) walk(base, '');
  return out;
}

async function record(scenario: ClaudeCodeScenario, entry: string): Promise<string> {
  const tmp = mkdtempSync(join(tmpdir(), `investibook-record-cc-${scenario.name}-`));
  const root = join(tmp, 'ws');
  buildRecordingWorkspace(root, 'recording');
  claudeLayout(root);
  const digest = treeDigest(root);
  const requests: RecordedMessagesRequest[] = [];
  const model = await startScriptedModel({
    script: scenario.script(root),
    smallModels: [SMALL_MODEL],
    onMessagesRequest: (request) => requests.push(request),
  });
  const home = join(tmp, 'home');
  // Permission requests come to the recorder over ACP (the default mode), never to Claude Code's
  // own classifier, which would ask the scripted model.
  mkdirSync(join(home, '.claude'), { recursive: true });
  writeFileSync(join(home, '.claude', 'settings.json'), JSON.stringify({ permissions: { defaultMode: 'default' } }));
  const env = claudeCodeEnv(home, { baseURL: `http://127.0.0.1:${model.port}`, model: MODEL, smallModel: SMALL_MODEL });
  const agent = await AcpProcess.start({
    command: process.execPath,
    args: [entry],
    cwd: root,
    env,
    onPermission: allowPermission,
    onStderr: (line) => process.stderr.write(`[claude-code] ${line}\n`),
  });
  try {
    const sessionId = await agent.newSession(root);
    const usageUpdates: unknown[] = [];
    const promptResults: unknown[] = [];
    for (const [index, text] of scenario.prompts.entries()) {
      const onUpdate = (update: SessionUpdate) => {
        if (update.sessionUpdate === 'usage_update')
          usageUpdates.push({ prompt: index, used: update.used, size: update.size, cost: update.cost ?? null });
      };
      const result = await agent.prompt(sessionId, [{ type: 'text', text }], onUpdate);
      promptResults.push({ prompt: index, text, ...result });
    }
    await agent.close();
    const written = transcripts(home);
    // The request of the session's last main-agent response (the scripted model names each
    // response by its request's number); helper calls after it (prompt suggestions) are not it.
    const mainFile = Object.keys(written).find((k) => !k.includes('/subagents/')) ?? '';
    const last = (written[mainFile] ?? [])
      .map((line) => JSON.parse(line) as { type?: string; isSidechain?: boolean; message?: { id?: string } })
      .findLast((e) => e.type === 'assistant' && !e.isSidechain && e.message?.id);
    const lastSeq = Number(/^msg_scripted_(\d+)$/.exec(last?.message?.id ?? '')?.[1]);
    const recording = {
      about:
        'Recorded from the real Claude Code by npm run record:claude-code (scripts/record-claude-code.ts). Do not edit: re-record.',
      scenario: scenario.name,
      description: scenario.description,
      claudeAgentAcp: CLAUDE_AGENT_ACP_VERSION,
      recordedAt: new Date().toISOString(),
      workspace: { root, digest },
      config: { model: MODEL, smallModel: SMALL_MODEL, tokenizer: 'claude' },
      sessionId,
      acp: { usageUpdates, promptResults },
      requests: requests.map((r) => ({
        seq: r.seq,
        kind: r.kind,
        model: r.body.model,
        messages: r.body.messages.length,
        usage: r.usage,
      })),
      lastRequest: requests.find((r) => r.seq === lastSeq)?.body ?? null,
      transcripts: written,
    };
    mkdirSync(OUT, { recursive: true });
    const file = join(OUT, `${scenario.name}.json`);
    writeFileSync(file, `${JSON.stringify(recording, null, 1)}\n`);
    return file;
  } finally {
    await agent.close();
    await model.close();
    rmSync(tmp, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const wanted = process.argv.slice(2);
  const entry = await ensureClaudeCode((line) => process.stderr.write(`${line}\n`));
  for (const scenario of CLAUDE_CODE_SCENARIOS) {
    if (wanted.length > 0 && !wanted.includes(scenario.name)) continue;
    process.stderr.write(`recording ${scenario.name}…\n`);
    process.stdout.write(`${await record(scenario, entry)}\n`);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
