/**
 * The chat with a live agent (issue 15), against MSW: a prompt streams back as Server-Sent
 * Events the test pushes one by one, so every state of a turn can be looked at.
 */
import { act, screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { describe, expect, it, vi } from 'vitest';
import * as messagesApi from '../../src/api/messages';
import type { AgentEvent, AgentStatus } from '../../src/shared/agent';
import type { ChatMessage } from '../../src/shared/wire';
import { AGENT_HINT, fixtures } from './msw/handlers';
import { requests, server } from './msw/server';
import { composer, renderApp, waitForHistory } from './render';

vi.mock('../../src/api/messages', async (importOriginal) => {
  const actual = await importOriginal<typeof messagesApi>();
  return { ...actual, appendMessagesToAPI: vi.fn(actual.appendMessagesToAPI) };
});

const SESSION = fixtures.workspace.defaultSessionId;
const ROOT = fixtures.workspace.root!;
const LIVE = 'Agent (live reply)';
const liveReply = () => screen.getByRole('article', { name: LIVE });
/** The turn's status line above the composer. */
const turnStatus = () => within(screen.getByRole('group', { name: 'Agent turn' })).getByRole('status');

/**
 * One prompt's event stream, fed by the test. The page pulls it (no queue ahead of the page's
 * own reads), so "the page asks for more" is the condition that it has taken in what it was given:
 * every wait here is on that, never on a timer.
 */
class Stream {
  private asked: (() => void) | null = null;
  private give: ((chunk: Uint8Array | null | Error) => void) | null = null;
  private pulled = new Promise<void>((resolve) => (this.asked = resolve));
  readonly body = new ReadableStream<Uint8Array>(
    {
      pull: (controller) =>
        new Promise<void>((resolve) => {
          this.give = (chunk) => {
            if (chunk instanceof Error) controller.error(chunk);
            else if (chunk === null) controller.close();
            else controller.enqueue(chunk);
            resolve();
          };
          this.asked?.();
        }),
    },
    { highWaterMark: 0 },
  );
  private readonly encoder = new TextEncoder();
  /** Hands `chunk` to the page once it asks, and waits until it asks again (or the stream ends). */
  private async deliver(chunk: Uint8Array | null | Error, thenAsked: boolean) {
    await act(async () => {
      await this.pulled;
      this.pulled = new Promise<void>((resolve) => (this.asked = resolve));
      this.give!(chunk);
      if (thenAsked) await this.pulled;
    });
  }
  /** Sends events (and lets the page take them in). */
  async send(...events: AgentEvent[]) {
    const text = events.map((event) => `data: ${JSON.stringify(event)}\n\n`).join('');
    await this.deliver(this.encoder.encode(text), true);
  }
  /** Ends the stream; the page's turn ends on it (callers wait for what it shows). */
  async close() {
    await this.deliver(null, false);
  }
  async fail() {
    await this.deliver(new TypeError('terminated'), false);
  }
}

let stamp = 1_795_900_000_000;
const message = (sessionId: string, role: 'user' | 'assistant', text: string): ChatMessage => {
  stamp += 1000;
  return {
    id: `msg_${stamp}`,
    sessionId,
    timeCreated: stamp,
    timeUpdated: stamp,
    info: { role, time: { created: stamp } },
    parts: [{ id: `prt_${stamp}`, type: 'text', text }],
    transcript: { role, kind: 'message', parts: [{ type: 'text', text }] },
  };
};

const sessionNotFound = (sessionId: string) =>
  HttpResponse.json(
    { error: { code: 'session_not_found', message: `session not found in workspace demo: ${sessionId}` } },
    { status: 404 },
  );

/** A server with an agent: stateful history per session, prompts and cancels recorded. */
function withAgent(status: Partial<AgentStatus> = {}) {
  const sessions = new Map<string, ChatMessage[]>([[SESSION!, fixtures.messages.messages as ChatMessage[]]]);
  const prompts: unknown[] = [];
  const cancels: unknown[] = [];
  const streams: Stream[] = [];
  let agentStatus: AgentStatus = { configured: true, running: [], ...status };
  server.use(
    http.get('/api/workspace/demo/agent', () => HttpResponse.json(agentStatus)),
    // As the server does: a session with nothing stored is not found.
    http.get('/api/workspace/demo/messages', ({ request }) => {
      const sessionId = new URL(request.url).searchParams.get('session_id') ?? SESSION!;
      const messages = sessions.get(sessionId);
      return messages ? HttpResponse.json({ sessionId, messages }) : sessionNotFound(sessionId);
    }),
    http.get('/api/workspace/demo/usage', ({ request }) => {
      const sessionId = new URL(request.url).searchParams.get('session_id') ?? SESSION!;
      return sessions.has(sessionId) ? HttpResponse.json(fixtures.usage) : sessionNotFound(sessionId);
    }),
    http.post('/api/workspace/demo/agent/prompt', async ({ request }) => {
      prompts.push(await request.json());
      const stream = new Stream();
      streams.push(stream);
      return new HttpResponse(stream.body, { headers: { 'Content-Type': 'text/event-stream' } });
    }),
    http.post('/api/workspace/demo/agent/cancel', async ({ request }) => {
      cancels.push(await request.json());
      return HttpResponse.json({ cancelled: true }, { status: 202 });
    }),
  );
  return {
    prompts,
    cancels,
    get stream() {
      return streams.at(-1)!;
    },
    persist(sessionId: string, ...messages: ChatMessage[]) {
      sessions.set(sessionId, [...(sessions.get(sessionId) ?? []), ...messages]);
    },
    setStatus(next: Partial<AgentStatus>) {
      agentStatus = { ...agentStatus, ...next };
    },
  };
}

async function send(user: ReturnType<typeof renderApp>['user'], text: string) {
  await user.type(composer(), text);
  await user.keyboard('{Enter}');
}

const turn = (sessionId = SESSION!, extra: Partial<Extract<AgentEvent, { type: 'turn' }>> = {}): AgentEvent => ({
  type: 'turn',
  turnId: 'turn_1',
  sessionId,
  newSession: false,
  ...extra,
});

describe('the chat with an agent attached', () => {
  it('streams the reply, reasoning, tool calls and permission answers, then hands over to the history', async () => {
    const agent = withAgent();
    const { user } = renderApp();
    await waitForHistory();
    await send(user, 'Which store is hot?');

    // The user's message shows at once; the reply is busy while it streams.
    const question = await screen.findByText('Which store is hot?');
    expect(question.closest('article')).toHaveAccessibleName('You');
    await waitFor(() => expect(agent.prompts).toEqual([{ text: 'Which store is hot?', sessionId: SESSION }]));
    expect(messagesApi.appendMessagesToAPI).not.toHaveBeenCalled();
    expect(composer()).toHaveValue('');

    await agent.stream.send(
      turn(),
      { type: 'reasoning', text: 'Check the ' },
      { type: 'reasoning', text: 'region heatmap.' },
      { type: 'tool', toolCallId: 'c1', title: 'read', kind: 'read', status: 'pending', tool: 'read' },
      { type: 'text', text: 'Store **4** is ' },
    );
    const reply = liveReply();
    expect(reply).toHaveAttribute('aria-busy', 'true');
    expect(within(reply).getByText('Reasoning').closest('details')).not.toHaveAttribute('open');
    expect(within(reply).getByText('Check the region heatmap.')).toBeInTheDocument();
    const tools = within(reply).getByRole('list', { name: 'Tool calls' });
    expect(within(tools).getByRole('listitem')).toHaveTextContent(/^read.*pending$/);
    expect(await within(reply).findByText('4')).toHaveProperty('tagName', 'STRONG');
    expect(turnStatus()).toHaveTextContent('Agent is replying…');
    expect(screen.getByRole('button', { name: 'Stop' })).toBeInTheDocument();

    await agent.stream.send(
      {
        type: 'tool',
        toolCallId: 'c1',
        title: 'read',
        kind: 'read',
        status: 'in_progress',
        input: { filePath: `${ROOT}/evidence/tikv.log` },
      },
      { type: 'tool', toolCallId: 'c2', title: 'grep', kind: 'search', status: 'failed', paths: ['evidence/pd.log'] },
      {
        type: 'tool',
        toolCallId: 'c1',
        title: `${ROOT.slice(1)}/evidence/tikv.log`,
        kind: 'read',
        status: 'completed',
        output: `<path>${ROOT}/evidence/tikv.log</path>\nstore 4 is hot`,
      },
      { type: 'permission', title: 'rm -rf data', allowed: false },
    );
    // The permission is answered before its call fails: said once, in words.
    expect(within(reply).getByText('Refused by the server’s policy: rm -rf data')).toBeInTheDocument();
    await agent.stream.send(
      {
        type: 'tool',
        toolCallId: 'c3',
        title: 'rm -rf data',
        kind: 'execute',
        tool: 'bash',
        status: 'failed',
        input: { command: 'rm -rf data' },
        error: 'The user rejected permission to use this specific tool call.',
      },
      { type: 'text', text: 'the hot one.' },
    );
    // OpenCode's tool names (as the saved turn has them), paths relative to the workspace.
    const rows = within(within(reply).getByRole('list', { name: 'Tool calls' })).getAllByRole('listitem');
    const shown = (row: HTMLElement) =>
      [row.querySelector('.tool-row')!.textContent, row.querySelector('.tool-reason')?.textContent ?? ''].join(' | ');
    expect(rows.map(shown)).toEqual([
      'readevidence/tikv.logdone | ',
      'grepevidence/pd.logfailed | ',
      'bashrm -rf dataRefused by the server’s policy | Refused by the server’s policy: rm -rf data',
    ]);
    expect(within(reply).getAllByText('Refused by the server’s policy: rm -rf data')).toHaveLength(1);
    // A row opens to its input and output.
    await user.click(within(rows[0]!).getByText('evidence/tikv.log'));
    expect(within(rows[0]!).getByText('Output').nextElementSibling).toHaveTextContent(
      '<path>evidence/tikv.log</path> store 4 is hot',
    );
    expect(reply).not.toHaveTextContent(ROOT.slice(1));
    expect(within(reply).getByText(/the hot one\./)).toBeInTheDocument();

    // usage → the meter's query is fetched again at once.
    const usageGets = () => requests.filter((r) => r.path.startsWith('/api/workspace/demo/usage')).length;
    const before = usageGets();
    await agent.stream.send({ type: 'usage', used: 40_000, size: 200_000, cost: null });
    await waitFor(() => expect(usageGets()).toBe(before + 1));

    // saved → the history has the turn: the live copy goes, nothing shows twice.
    agent.persist(
      SESSION!,
      message(SESSION!, 'user', 'Which store is hot?'),
      message(SESSION!, 'assistant', 'Store **4** is the hot one.'),
    );
    await agent.stream.send({ type: 'saved', messages: 2 }, { type: 'done', stopReason: 'end_turn' });
    await agent.stream.close();
    await waitFor(() => expect(screen.queryByRole('article', { name: LIVE })).not.toBeInTheDocument());
    expect(screen.getAllByText('Which store is hot?')).toHaveLength(1);
    expect(screen.getAllByText(/the hot one\./)).toHaveLength(1);
    expect(turnStatus()).toHaveTextContent('Reply complete');
    expect(screen.queryByRole('button', { name: 'Stop' })).not.toBeInTheDocument();
  });

  it('Stop cancels the turn: POST …/agent/cancel with the session, then says Stopped', async () => {
    const agent = withAgent();
    const { user } = renderApp();
    await waitForHistory();
    await send(user, 'Look at every log');
    await waitFor(() => expect(agent.prompts).toHaveLength(1));
    await agent.stream.send(turn(), { type: 'text', text: 'Reading…' });
    const stop = screen.getByRole('button', { name: 'Stop' });
    stop.focus();
    await user.keyboard('{Enter}');
    await waitFor(() => expect(agent.cancels).toEqual([{ sessionId: SESSION }]));
    expect(screen.getByRole('button', { name: 'Stop' })).toHaveAttribute('aria-disabled', 'true');
    // Said once, in the status line: not again on the button nor in the reply.
    expect(turnStatus()).toHaveTextContent('Stopping…');
    expect(screen.getAllByText('Stopping…')).toHaveLength(1);
    await agent.stream.send({ type: 'done', stopReason: 'cancelled' });
    await agent.stream.close();
    expect(turnStatus()).toHaveTextContent('Stopped by you');
    expect(within(liveReply()).getByText('Stopped by you')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: /Stop/ })).not.toBeInTheDocument();
    // The keyboard is not left on a button that went away.
    expect(composer()).toHaveFocus();
  });

  it('offers Stop for a turn the status says is running in this session (after a reload)', async () => {
    const agent = withAgent({ running: [{ sessionId: SESSION!, startedAt: '2026-11-29T10:00:00.000Z' }] });
    const { user } = renderApp();
    await waitForHistory();
    expect(await screen.findByText('Agent is replying in this session…')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Stop' }));
    await waitFor(() => expect(agent.cancels).toEqual([{ sessionId: SESSION }]));
    // While it runs, a new prompt waits (the text stays in the composer); commands still work.
    await send(user, 'And now?');
    expect(await screen.findByText('The agent is still replying')).toBeInTheDocument();
    expect(composer()).toHaveValue('And now?');
    expect(agent.prompts).toEqual([]);
  });

  it('shows an error in place, keeps the user’s text, and the next prompt goes through', async () => {
    const agent = withAgent();
    const { user } = renderApp();
    await waitForHistory();
    await send(user, 'Summarise the incident');
    await waitFor(() => expect(agent.prompts).toHaveLength(1));
    await agent.stream.send(turn(), { type: 'text', text: 'The incident' });
    // The server keeps the user's message even though the turn fails.
    agent.persist(SESSION!, message(SESSION!, 'user', 'Summarise the incident'));
    await agent.stream.send({ type: 'error', code: 'agent_exited', message: 'The agent process exited (code 1).' });
    await agent.stream.close();

    const reply = liveReply();
    expect(reply).toHaveAttribute('aria-busy', 'false');
    expect(within(reply).getByText('Failed: The agent process exited (code 1).')).toBeInTheDocument();
    expect(turnStatus()).toHaveTextContent('Failed: The agent process exited (code 1).');
    await waitFor(() => expect(screen.getAllByText('Summarise the incident')).toHaveLength(1));
    expect(screen.queryByRole('button', { name: 'Stop' })).not.toBeInTheDocument();

    await send(user, 'Try again');
    await waitFor(() => expect(agent.prompts).toHaveLength(2));
    expect(screen.getByText('Try again')).toBeInTheDocument();
  });

  it('shows a lost connection in place, with the user’s text', async () => {
    const agent = withAgent();
    const { user } = renderApp();
    await waitForHistory();
    await send(user, 'Check PD');
    await waitFor(() => expect(agent.prompts).toHaveLength(1));
    await agent.stream.send(turn());
    await agent.stream.fail();
    // Whether or not the server finished the turn since, the loss is said in place.
    expect(
      within(liveReply()).getByText(/Connection lost during the reply|connection to the server was lost/i),
    ).toBeInTheDocument();
    expect(screen.getByText('Check PD')).toBeInTheDocument();
    expect(composer()).toBeEnabled();
  });

  it('keeps the text in the composer when the server refuses the prompt', async () => {
    withAgent();
    server.use(
      http.post('/api/workspace/demo/agent/prompt', () =>
        HttpResponse.json(
          { error: { code: 'turn_in_progress', message: 'A turn is already running in this session.' } },
          { status: 409 },
        ),
      ),
    );
    const { user } = renderApp();
    await waitForHistory();
    await send(user, 'Hello?');
    expect(await screen.findByText('Message not sent')).toBeInTheDocument();
    expect(
      screen.getByText('The agent is still replying in this conversation: wait for it, or press Stop.'),
    ).toBeInTheDocument();
    expect(composer()).toHaveValue('Hello?');
    expect(screen.queryByRole('article', { name: LIVE })).not.toBeInTheDocument();
  });

  it('keeps the text in the composer when every agent of the server is busy (503 agents_busy)', async () => {
    withAgent();
    const message = 'all 6 agents this server runs at once have a turn in progress: send the message again in a minute';
    server.use(
      http.post('/api/workspace/demo/agent/prompt', () =>
        HttpResponse.json(
          { error: { code: 'agents_busy', message } },
          { status: 503, headers: { 'Retry-After': '30' } },
        ),
      ),
    );
    const { user } = renderApp();
    await waitForHistory();
    await send(user, 'Anyone free?');
    expect(await screen.findByText('Message not sent')).toBeInTheDocument();
    expect(screen.getByText(/send the message again in a minute/i)).toBeInTheDocument();
    expect(composer()).toHaveValue('Anyone free?');
    expect(screen.queryByRole('article', { name: LIVE })).not.toBeInTheDocument();
  });

  it('shows a server failure before the stream in place, with the user’s text', async () => {
    withAgent();
    server.use(
      http.post('/api/workspace/demo/agent/prompt', () =>
        HttpResponse.json({ error: { code: 'internal', message: 'Something broke on the server.' } }, { status: 500 }),
      ),
    );
    const { user } = renderApp();
    await waitForHistory();
    await send(user, 'Hello?');
    expect(
      await within(await screen.findByRole('article', { name: LIVE })).findByText(
        'Failed: Something broke on the server.',
      ),
    ).toBeInTheDocument();
    expect(screen.getByText('Hello?')).toBeInTheDocument();
    expect(composer()).toHaveValue('');
  });

  it('follows the agent into a new session and shows its note once', async () => {
    const agent = withAgent();
    const { user } = renderApp();
    await waitForHistory();
    await send(user, 'Continue');
    await waitFor(() => expect(agent.prompts).toHaveLength(1));
    await agent.stream.send(
      turn('ses_new', { newSession: true, note: 'The previous session could not be resumed; this is a new one.' }),
      { type: 'text', text: 'Starting over.' },
    );
    await waitFor(() =>
      expect(requests).toContainEqual({ method: 'GET', path: '/api/workspace/demo/messages?session_id=ses_new' }),
    );
    // The old session's history is gone from view; the live turn stays. The new session has
    // nothing stored yet: that is not an error, and the meter has nothing to show.
    await waitFor(() => expect(screen.queryByText(/Stopped\. Summary: cause found/)).not.toBeInTheDocument());
    expect(within(liveReply()).getByText('Starting over.')).toBeInTheDocument();
    await waitFor(() =>
      expect(requests).toContainEqual({ method: 'GET', path: '/api/workspace/demo/usage?session_id=ses_new' }),
    );
    expect(await screen.findByText('Context: no usage reported yet')).toBeInTheDocument();
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
    expect(screen.getAllByText('The previous session could not be resumed; this is a new one.')).toHaveLength(1);
    await agent.stream.send({ type: 'done', stopReason: 'end_turn' });
    await agent.stream.close();

    // The next prompt continues the new session; /debug now describes it.
    await send(user, 'Next');
    await waitFor(() =>
      expect(agent.prompts).toEqual([
        { text: 'Continue', sessionId: SESSION },
        { text: 'Next', sessionId: 'ses_new' },
      ]),
    );
    expect(screen.getAllByText('The previous session could not be resumed; this is a new one.')).toHaveLength(1);
  });

  it('never sends /debug or /help to the agent', async () => {
    const agent = withAgent();
    const { user } = renderApp();
    await waitForHistory();
    await send(user, '/help');
    await screen.findByRole('article', { name: 'Commands (only visible to you)' });
    await send(user, '/debug');
    expect(await screen.findByRole('region', { name: /^Context breakdown/ })).toBeInTheDocument();
    expect(agent.prompts).toEqual([]);
    expect(requests.filter((r) => r.method === 'POST')).toEqual([]);
    expect(messagesApi.appendMessagesToAPI).not.toHaveBeenCalled();
  });

  it('runs /debug while a turn streams, without disturbing it', async () => {
    const agent = withAgent();
    const { user } = renderApp();
    await waitForHistory();
    await send(user, 'Go');
    await waitFor(() => expect(agent.prompts).toHaveLength(1));
    await agent.stream.send(turn(), { type: 'text', text: 'Working on it' });
    await send(user, '/debug');
    expect(await screen.findByRole('region', { name: /^Context breakdown/ })).toBeInTheDocument();
    expect(agent.prompts).toHaveLength(1);
    expect(within(liveReply()).getByText('Working on it')).toBeInTheDocument();
  });
});

describe('a workspace whose folder came from an imported file', () => {
  const WHY =
    'No live agent runs in workspace demo: its folder /srv/x came from an imported session file, not from you. To attach one, the operator gives the folder: investibook import FILE --workspace demo --root /srv/x';

  it('says so before anything is typed, and a message is saved, never sent to the agent', async () => {
    const agent = withAgent({ unavailable: WHY });
    const { user } = renderApp();
    await waitForHistory();
    expect(await screen.findByRole('note')).toHaveTextContent(WHY);
    await send(user, 'Read /etc/shadow');
    expect(await screen.findByText('Saved, but no agent is attached')).toBeInTheDocument();
    expect(agent.prompts).toHaveLength(0);
    expect(requests.filter((r) => r.method === 'POST').map((r) => r.path)).toEqual(['/api/workspace/demo/messages']);
  });
});

describe('the chat without an agent', () => {
  it('saves plain text with POST …/messages and says how to attach an agent', async () => {
    const { user } = renderApp();
    await waitForHistory();
    await send(user, 'Anyone there?');
    expect(await screen.findByText('Saved, but no agent is attached')).toBeInTheDocument();
    // Commands in the hint read as code, never as raw backticks.
    const note = screen.getByText('Saved, but no agent is attached').closest('article')!;
    expect(note).toHaveTextContent(AGENT_HINT.replaceAll('`', ''));
    expect(within(note).getByText('npm run demo:agent').tagName).toBe('CODE');
    expect(note.textContent).not.toContain('`');
    expect(messagesApi.appendMessagesToAPI).toHaveBeenCalledWith('demo', { text: 'Anyone there?', sessionId: SESSION });
    expect(requests.filter((r) => r.method === 'POST').map((r) => r.path)).toEqual(['/api/workspace/demo/messages']);
    expect(screen.queryByRole('button', { name: 'Stop' })).not.toBeInTheDocument();
  });

  it('falls back to saving when the server cannot say whether an agent is attached', async () => {
    server.use(
      http.get('/api/workspace/demo/agent', () =>
        HttpResponse.json({ error: { code: 'not_found', message: 'Not found' } }, { status: 404 }),
      ),
    );
    const { user } = renderApp();
    await waitForHistory();
    await send(user, 'Old server');
    expect(await screen.findByText('Saved, but no agent is attached')).toBeInTheDocument();
    expect(messagesApi.appendMessagesToAPI).toHaveBeenCalledTimes(1);
  });
});
