/**
 * Nothing typed is lost, even when the server is killed mid-turn: a real `npm start` process
 * with the pinned OpenCode as the operator's own agent (INVESTIBOOK_AGENT_COMMAND, its provider
 * configuration in the operator's config folder), the scripted model in this process. The
 * server is killed with SIGKILL while the model is still answering; after a restart the prompt
 * is in the chat, once, and the next prompt continues the same session.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  installedOpencode,
  opencodeEnv,
  SCRIPTED_SMALL_MODEL,
  writeScriptedConfig,
} from '../../src/node/agent/opencode/install';
import { liveDemoScript } from '../../src/node/demo/live-script';
import { startScriptedModel, type RunningModel } from '../../src/node/scripted-model/server';
import type { AgentEvent } from '../../src/shared/agent';
import { messagesResponseSchema, workspaceSchema } from '../../src/shared/wire';
import { readTurn } from '../support/agent-harness';
import { startServerProcess, type ServerProcess } from '../support/server-process';

const TOKEN = 'crash-test-token';
let dir: string;
let model: RunningModel;
let env: Record<string, string>;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'investibook-crash-'));
  const root = join(dir, 'workspaces', 'demo');
  const script = liveDemoScript(root);
  script.turns.unshift({
    when: 'take forever',
    steps: [
      { tools: [{ name: 'read', args: { filePath: `${root}/evidence/pd-hot-regions.txt` } }] },
      { delayMs: 120_000, text: 'Never seen: the server is gone by now.' },
    ],
  });
  model = await startScriptedModel({ script, smallModels: [SCRIPTED_SMALL_MODEL] });
  // The operator's own OpenCode set-up: a HOME whose config names the (scripted) provider.
  const operator = opencodeEnv(join(dir, 'operator-home'));
  writeScriptedConfig(operator, { baseURL: model.url });
  env = {
    ...(Object.fromEntries(Object.entries(operator).filter(([, v]) => v !== undefined)) as Record<string, string>),
    INVESTIBOOK_AGENT_COMMAND: `${installedOpencode()} acp`,
  };
});
afterAll(async () => {
  await model?.close();
  rmSync(dir, { recursive: true, force: true });
});

const api = (server: ServerProcess, path: string, init: RequestInit = {}) =>
  fetch(`${server.origin}/api/workspace/demo${path}`, {
    ...init,
    headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json', ...init.headers },
  });

describe('the server killed mid-turn', () => {
  it('keeps the prompt; after a restart it is in the chat once, and the next prompt continues', async () => {
    const dbPath = join(dir, 'investibook.db');
    const first = await startServerProcess(dbPath, TOKEN, env);
    let sessionId = '';
    const response = await api(first, '/agent/prompt', {
      method: 'POST',
      body: JSON.stringify({ text: 'Please take forever' }),
    });
    const turn = await readTurn(response, (event: AgentEvent) => {
      if (event.type === 'turn') sessionId = event.sessionId;
      // The model is answering (the read is done, the reply is on its way): kill the server.
      if (event.type === 'tool' && event.status === 'completed') first.child.kill('SIGKILL');
    });
    expect(turn.events.some((e) => e.type === 'done' || e.type === 'saved')).toBe(false);
    // Killed by a signal, its exitCode stays null: signalCode tells it has gone (else its 'exit' may have passed).
    const gone = () => first.child.exitCode !== null || first.child.signalCode !== null;
    await new Promise((done) => (gone() ? done(null) : first.child.once('exit', done)));

    const second = await startServerProcess(dbPath, TOKEN, env);
    try {
      const workspace = workspaceSchema.parse(await (await api(second, '')).json());
      expect(workspace.sessions.map((s) => s.id)).toContain(sessionId);
      const texts = async () =>
        messagesResponseSchema
          .parse(await (await api(second, `/messages?session_id=${sessionId}`)).json())
          .messages.flatMap((m) => m.parts.flatMap((p) => (p.type === 'text' && !p.synthetic ? [String(p.text)] : [])));
      expect((await texts()).filter((t) => t === 'Please take forever')).toHaveLength(1);

      const next = await readTurn(
        await api(second, '/agent/prompt', {
          method: 'POST',
          body: JSON.stringify({ text: 'What do we know so far?', sessionId }),
        }),
      );
      expect(next.events.find((e) => e.type === 'turn')).toMatchObject({ sessionId, newSession: false });
      expect(next.events.find((e) => e.type === 'done')).toMatchObject({ stopReason: 'end_turn' });
      // The agent's record replaced the kept prompt: still shown once.
      expect((await texts()).filter((t) => t === 'Please take forever')).toHaveLength(1);
      expect(await texts()).toContain('What do we know so far?');
    } finally {
      await second.stop();
    }
  });
});
