/** The agent endpoints' client: the SSE parser, streamPrompt over MSW, cancelTurn, the status poll. */
import fc from 'fast-check';
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import {
  agentQueries,
  cancelTurn,
  createSseParser,
  IDLE_POLL_MS,
  RUNNING_POLL_MS,
  streamPrompt,
} from '../../src/api/agent';
import { ApiError } from '../../src/api/http';
import type { AgentEvent } from '../../src/shared/agent';
import { server } from './msw/server';

const parseAll = (chunks: string[]): string[] => {
  const out: string[] = [];
  const parser = createSseParser((data) => out.push(data));
  for (const chunk of chunks) parser.push(chunk);
  parser.end();
  return out;
};

/** Cuts a text at the given offsets. */
const cut = (text: string, offsets: number[]): string[] => {
  const points = [...new Set(offsets.map((o) => o % (text.length + 1)))].sort((a, b) => a - b);
  const chunks: string[] = [];
  let from = 0;
  for (const point of points) {
    chunks.push(text.slice(from, point));
    from = point;
  }
  chunks.push(text.slice(from));
  return chunks;
};

describe('createSseParser', () => {
  it('dispatches data lines at blank lines, joins multi-line data, skips comments and other fields', () => {
    const text =
      ': keep-alive\n\ndata: {"a":1}\n\nevent: x\nid: 7\nretry: 10\ndata:one\ndata: two\n\n:comment\ndata: last\n\n';
    expect(parseAll([text])).toEqual(['{"a":1}', 'one\ntwo', 'last']);
  });

  it('accepts CRLF, LF and CR line ends, and a last event without its blank line', () => {
    expect(parseAll(['data: a\r\n\r\ndata: b\r\rdata: c\n\ndata: d'])).toEqual(['a', 'b', 'c', 'd']);
  });

  it('gives the same events however the stream is cut into chunks', () => {
    const text = ': hi\r\ndata: {"type":"text","text":"a\\nb"}\r\n\r\ndata: x\r\ndata: y\r\r: c\ndata: z\n\n';
    const whole = parseAll([text]);
    expect(whole).toEqual(['{"type":"text","text":"a\\nb"}', 'x\ny', 'z']);
    fc.assert(
      fc.property(fc.array(fc.nat(), { maxLength: 12 }), (offsets) => {
        expect(parseAll(cut(text, offsets))).toEqual(whole);
      }),
    );
  });
});

const sse = (...events: (AgentEvent | Record<string, unknown> | string)[]) =>
  events.map((e) => (typeof e === 'string' ? e : `data: ${JSON.stringify(e)}\n\n`)).join('');

/** A streamed body whose bytes are cut mid-character and mid-line. */
function byteStream(text: string, size = 7): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  let at = 0;
  return new ReadableStream({
    pull(controller) {
      if (at >= bytes.length) return controller.close();
      controller.enqueue(bytes.slice(at, at + size));
      at += size;
    },
  });
}

const eventStream = (body: ReadableStream<Uint8Array> | string) =>
  new HttpResponse(body, { headers: { 'Content-Type': 'text/event-stream; charset=utf-8' } });

describe('streamPrompt', () => {
  it('POSTs JSON and calls onEvent for every event in order, skipping unknown ones, across byte chunks', async () => {
    let body: unknown;
    let contentType: string | null = null;
    server.use(
      http.post('/api/workspace/demo/agent/prompt', async ({ request }) => {
        body = await request.json();
        contentType = request.headers.get('Content-Type');
        return eventStream(
          byteStream(
            sse(
              { type: 'turn', turnId: 't1', sessionId: 's1', newSession: false },
              ': ping\n\n',
              { type: 'text', text: '根因：缺少索引 ✓' },
              { type: 'future-event', x: 1 },
              'data: not json\n\n',
              { type: 'done', stopReason: 'end_turn' },
            ),
          ),
        );
      }),
    );
    const events: AgentEvent[] = [];
    let opened = false;
    const end = await streamPrompt(
      'demo',
      { text: 'why?', sessionId: 's1' },
      { onOpen: () => (opened = true), onEvent: (e) => events.push(e) },
    );
    expect(body).toEqual({ text: 'why?', sessionId: 's1' });
    expect(contentType).toBe('application/json');
    expect(opened).toBe(true);
    expect(end).toBe('done');
    expect(events).toEqual([
      { type: 'turn', turnId: 't1', sessionId: 's1', newSession: false },
      { type: 'text', text: '根因：缺少索引 ✓' },
      { type: 'done', stopReason: 'end_turn' },
    ]);
  });

  it('says when the stream closed before the turn ended', async () => {
    server.use(
      http.post('/api/workspace/demo/agent/prompt', () =>
        eventStream(sse({ type: 'turn', turnId: 't', sessionId: 's', newSession: false }, { type: 'text', text: 'a' })),
      ),
    );
    expect(await streamPrompt('demo', { text: 'x' }, { onEvent: () => {} })).toBe('closed');
  });

  it('throws the server’s JSON error before the stream starts, without opening', async () => {
    server.use(
      http.post('/api/workspace/demo/agent/prompt', () =>
        HttpResponse.json(
          { error: { code: 'turn_in_progress', message: 'A turn is already running in this session.' } },
          { status: 409 },
        ),
      ),
    );
    let opened = false;
    const error = await streamPrompt('demo', { text: 'x' }, { onOpen: () => (opened = true), onEvent: () => {} }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({
      status: 409,
      code: 'turn_in_progress',
      message: 'A turn is already running in this session.',
    });
    expect(opened).toBe(false);
  });

  it('turns a network failure into an ApiError and lets an abort through', async () => {
    server.use(http.post('/api/workspace/demo/agent/prompt', () => HttpResponse.error()));
    await expect(streamPrompt('demo', { text: 'x' }, { onEvent: () => {} })).rejects.toMatchObject({
      status: 0,
      code: 'network',
    });
    const controller = new AbortController();
    controller.abort();
    await expect(
      streamPrompt('demo', { text: 'x' }, { signal: controller.signal, onEvent: () => {} }),
    ).rejects.toMatchObject({ name: 'AbortError' });
  });
});

describe('cancelTurn', () => {
  it('POSTs the session and says whether a turn was running', async () => {
    const bodies: unknown[] = [];
    server.use(
      http.post('/api/workspace/demo/agent/cancel', async ({ request }) => {
        bodies.push(await request.json());
        return bodies.length === 1
          ? HttpResponse.json({ cancelled: true }, { status: 202 })
          : HttpResponse.json({ error: { code: 'no_turn', message: 'No turn is running.' } }, { status: 404 });
      }),
    );
    expect(await cancelTurn('demo', 's1')).toBe(true);
    expect(await cancelTurn('demo', 's1')).toBe(false);
    expect(bodies).toEqual([{ sessionId: 's1' }, { sessionId: 's1' }]);
  });
});

describe('agentQueries.status', () => {
  it('polls fast while a turn runs, slowly when idle, never without an agent', () => {
    const interval = agentQueries.status('demo').refetchInterval as (query: unknown) => number | false;
    const at = (data: unknown) => interval({ state: { data } });
    expect(at({ configured: true, running: [{ sessionId: 's', startedAt: 'now' }] })).toBe(RUNNING_POLL_MS);
    expect(at({ configured: true, running: [] })).toBe(IDLE_POLL_MS);
    expect(at({ configured: false, running: [] })).toBe(false);
    expect(at(undefined)).toBe(false);
  });
});
