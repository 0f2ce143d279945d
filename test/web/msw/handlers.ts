/** Happy-path handlers, grouped by domain, answering with fixtures the real engine generated. */
import { http, HttpResponse } from 'msw';
import itemSkill from '../../fixtures/item-skill-demo.json';
import messages from '../../fixtures/messages-demo.json';
import reader from '../../fixtures/reader-demo.json';
import report from '../../fixtures/report-demo.json';
import usage from '../../fixtures/usage-demo.json';
import workspace from '../../fixtures/workspace-demo.json';

export const fixtures = { workspace, messages, usage, report, itemSkill, reader };

export const workspaceHandlers = [http.get('/api/workspace/demo', () => HttpResponse.json(workspace))];

export const messageHandlers = [
  http.get('/api/workspace/demo/messages', () => HttpResponse.json(messages)),
  http.post('/api/workspace/demo/messages', async ({ request }) => {
    const body = (await request.json()) as { text: string };
    const now = Date.now();
    return HttpResponse.json(
      {
        message: {
          id: `msg_${now.toString(16)}`,
          sessionId: workspace.defaultSessionId,
          timeCreated: now,
          timeUpdated: now,
          info: { role: 'user', time: { created: now } },
          parts: [{ id: 'prt_new', type: 'text', text: body.text }],
          transcript: { role: 'user', kind: 'message', parts: [{ type: 'text', text: body.text }] },
        },
      },
      { status: 201 },
    );
  }),
];

export const usageHandlers = [http.get('/api/workspace/demo/usage', () => HttpResponse.json(usage))];

export const debugHandlers = [
  http.get('/api/workspace/demo/debug/context', () => HttpResponse.json(report)),
  http.get('/api/workspace/demo/debug/context/items/:itemId', ({ params }) =>
    params.itemId === itemSkill.itemId
      ? HttpResponse.json(itemSkill)
      : HttpResponse.json({ error: { code: 'item_not_found', message: 'No such item' } }, { status: 404 }),
  ),
  http.get('/api/workspace/demo/debug/context/reader', () => HttpResponse.json(reader)),
];

/** What a server without an agent answers (`npm start`); tests with an agent override it. */
export const AGENT_HINT = 'Run `npm run demo:agent`, or set INVESTIBOOK_AGENT_COMMAND and restart the server.';

export const agentHandlers = [
  http.get('/api/workspace/demo/agent', () => HttpResponse.json({ configured: false, hint: AGENT_HINT, running: [] })),
  http.post('/api/workspace/demo/agent/prompt', () =>
    HttpResponse.json(
      { error: { code: 'agent_not_configured', message: 'No agent is configured on this server.' } },
      { status: 409 },
    ),
  ),
];

export const handlers = [
  ...workspaceHandlers,
  ...messageHandlers,
  ...usageHandlers,
  ...debugHandlers,
  ...agentHandlers,
];
