// A tiny ACP agent for the bridge's own tests (the real one is OpenCode: test/agent/). Speaks
// ACP over stdio with the same SDK; behaviour is chosen by words of the prompt:
//   "hang"  the prompt never ends until cancelled
//   "crash"       the process exits mid-turn  "delegate"  a task call whose subagent has a session of its own
//   "/compact"    as OpenCode's ACP agent does: its summarize — a user message holding a
//                 compaction part (no text) and a summary — never a user message of the text
//   anything else: a short reply and a usage_update
// With FAKE_START_GATE set, the n-th session/new is held at a gate the test opens: it writes
// asked-<n> in its store on arrival and answers once open-<n> exists there (a condition the test
// controls, never a fixed delay).
// Sessions are written to $XDG_DATA_HOME/fake-agent/<id>.json (the workspace's own agent
// storage, as the server sets it) in OpenCode's export shape, so
// `node fake-acp-agent.mjs export <id>` can read them back like `opencode export`.
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { agent, methods, ndJsonStream, PROTOCOL_VERSION } from '@agentclientprotocol/sdk';

const store = join(process.env.XDG_DATA_HOME, 'fake-agent');
mkdirSync(store, { recursive: true });
const file = (id) => join(store, `${id}.json`);

if (process.argv[2] === 'export') {
  if (process.env.FAKE_EXPORT_FAILS) {
    console.error('export: storage is locked');
    process.exit(1);
  }
  process.stdout.write(readFileSync(file(process.argv[3]), 'utf8'));
  // Which sessions were read back, for the tests (exports.log beside the sessions).
  appendFileSync(join(store, 'exports.log'), `${process.argv[3]}\n`);
  process.exit(0);
}

let counter = 0;
let opened = 0;
const cancelled = new Map();

async function startGate() {
  const n = ++opened;
  writeFileSync(join(store, `asked-${n}`), '');
  // Polls for the test's file: the agent's event loop stays free for other requests meanwhile.
  while (!existsSync(join(store, `open-${n}`))) await new Promise((done) => setTimeout(done, 10));
}

const app = agent({ name: 'fake' })
  .onRequest(methods.agent.initialize, () => ({
    protocolVersion: PROTOCOL_VERSION,
    agentCapabilities: { loadSession: true },
  }))
  .onRequest(methods.agent.session.new, async () => {
    if (process.env.FAKE_START_GATE) await startGate();
    const id = `ses_fake${Date.now()}${++counter}`;
    writeFileSync(file(id), JSON.stringify({ info: { id }, messages: [] }));
    return { sessionId: id };
  })
  .onRequest(methods.agent.session.load, ({ params }) => {
    readFileSync(file(params.sessionId)); // throws for a session this agent never had
    return {};
  })
  .onNotification(methods.agent.session.cancel, ({ params }) => cancelled.get(params.sessionId)?.())
  .onRequest(methods.agent.session.prompt, async ({ params, client }) => {
    const text = params.prompt.find((b) => b.type === 'text')?.text ?? '';
    const session = JSON.parse(readFileSync(file(params.sessionId), 'utf8'));
    const now = Date.now();
    if (text === '/compact') {
      const model = { agent: 'compaction', providerID: 'fake', modelID: 'fake-1' };
      session.messages.push(
        {
          info: { id: `msg_u${now}${++counter}`, role: 'user', time: { created: now } },
          parts: [{ id: `prt_${++counter}`, type: 'compaction', auto: false }],
        },
        {
          info: { id: `msg_a${now}${++counter}`, role: 'assistant', summary: true, time: { created: now }, ...model },
          parts: [{ id: `prt_${++counter}`, type: 'text', text: 'the summary so far' }],
        },
      );
      writeFileSync(file(params.sessionId), JSON.stringify(session));
      return { stopReason: 'end_turn' };
    }
    session.messages.push({
      info: { id: `msg_u${now}${++counter}`, role: 'user', time: { created: now } },
      parts: [{ id: `prt_${counter}`, type: 'text', text }],
    });
    writeFileSync(file(params.sessionId), JSON.stringify(session));
    if (text.includes('crash')) process.exit(3);
    if (text.includes('hang')) {
      await new Promise((done) => cancelled.set(params.sessionId, done));
      return { stopReason: 'cancelled' };
    }
    await client.notify(methods.client.session.update, {
      sessionId: params.sessionId,
      update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'fake reply' } },
    });
    await client.notify(methods.client.session.update, {
      sessionId: params.sessionId,
      update: { sessionUpdate: 'usage_update', used: 1234, size: 10000, cost: { amount: 0.01, currency: 'USD' } },
    });
    const model = { agent: 'build', providerID: 'fake', modelID: 'fake-1' };
    const parts = [{ id: `prt_${++counter}`, type: 'text', text: 'fake reply' }];
    if (text.includes('delegate')) {
      // As OpenCode's task tool does: the subagent works in a child session, named on the call.
      const child = `ses_fakechild${now}${++counter}`;
      writeFileSync(
        file(child),
        JSON.stringify({
          info: { id: child, parentID: params.sessionId },
          messages: [
            {
              info: { id: `msg_cu${now}${++counter}`, role: 'user', time: { created: now } },
              parts: [{ id: `prt_${++counter}`, type: 'text', text: 'sub task' }],
            },
            {
              info: {
                id: `msg_ca${now}${++counter}`,
                role: 'assistant',
                time: { created: now, completed: now + 1 },
                ...model,
                agent: 'general',
              },
              parts: [{ id: `prt_${++counter}`, type: 'text', text: 'sub answer' }],
            },
          ],
        }),
      );
      parts.unshift({
        id: `prt_${++counter}`,
        type: 'tool',
        callID: `call_${counter}`,
        tool: 'task',
        state: {
          status: 'completed',
          input: { description: 'Sub task', prompt: 'sub task', subagent_type: 'general' },
          output: 'sub answer',
          title: 'Sub task',
          metadata: { sessionId: child },
          time: { start: now, end: now + 1 },
        },
      });
    }
    session.messages.push({
      info: { id: `msg_a${now}${++counter}`, role: 'assistant', time: { created: now, completed: now + 1 }, ...model },
      parts,
    });
    writeFileSync(file(params.sessionId), JSON.stringify(session));
    return { stopReason: 'end_turn' };
  });

app.connect(ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin)));
