/**
 * The scripted model's Messages API (Claude Code's): a scripted turn streamed as Anthropic's
 * events with its tool call, the usage split into fresh input and cache reads that add up to the
 * count, `count_tokens` giving the same count, a small model's request answered as a title, a
 * held answer kept until released.
 */
import { describe, expect, it } from 'vitest';
import { asChatRequest, type MessagesRequest } from '../../src/node/scripted-model/anthropic';
import { promptTokens } from '../../src/node/scripted-model/prompt-tokens';
import { HeldAnswers } from '../../src/node/scripted-model/held';
import { familyCounting, scriptedModelApp } from '../../src/node/scripted-model/server';
import type { Script } from '../../src/node/scripted-model/script';

const script: Script = {
  turns: [
    {
      when: 'read the summary',
      steps: [
        { tools: [{ name: 'Read', args: { file_path: '/ws/evidence/summary.txt' } }] },
        { text: 'The summary says store 4.' },
      ],
    },
    { when: 'take your time', steps: [{ hold: true, text: 'Late.' }] },
  ],
  summary: 'summary',
  title: 'A title',
  fallback: 'Done.',
};

const app = () => scriptedModelApp({ script, smallModels: ['small'] });
const rules = familyCounting({ encoding: 'claude' });
const request = (body: MessagesRequest, path = '/v1/messages') =>
  app().request(path, { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });

const first: MessagesRequest = {
  model: 'claude-scripted',
  system: [{ type: 'text', text: 'You are an agent.' }],
  tools: [{ name: 'Read', description: 'Reads a file', input_schema: { type: 'object' } }],
  messages: [
    {
      role: 'user',
      content: [
        { type: 'text', text: '<system-reminder>\nInstructions.\n</system-reminder>' },
        { type: 'text', text: 'Please read the summary.' },
      ],
    },
  ],
  stream: true,
};

/** The events of a server-sent stream, by name, with their data. */
function events(text: string): { event: string; data: Record<string, unknown> }[] {
  return text
    .split('\n\n')
    .filter((block) => block.trim() !== '')
    .map((block) => {
      const event = /^event: (.*)$/m.exec(block)![1]!;
      const data = JSON.parse(/^data: (.*)$/m.exec(block)![1]!) as Record<string, unknown>;
      return { event, data };
    });
}

describe("the scripted model's Messages API", () => {
  it('streams a scripted tool call as Anthropic does, its usage adding up to the count', async () => {
    const response = await request(first);
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const stream = events(await response.text());
    expect(stream.map((e) => e.event)).toEqual([
      'message_start',
      'content_block_start',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    expect(stream[1]!.data.content_block).toMatchObject({ type: 'tool_use', name: 'Read', input: {} });
    expect(JSON.parse((stream[2]!.data.delta as { partial_json: string }).partial_json)).toEqual({
      file_path: '/ws/evidence/summary.txt',
    });
    expect(stream[4]!.data.delta).toMatchObject({ stop_reason: 'tool_use' });
    const usage = (stream[0]!.data.message as { usage: Record<string, number> }).usage;
    expect(usage.input_tokens! + usage.cache_read_input_tokens! + usage.cache_creation_input_tokens!).toBe(
      promptTokens(asChatRequest(first), rules),
    );
  });

  it('answers the next step after the tool result, and counts tokens the same way', async () => {
    const id = 'toolu_1';
    const next: MessagesRequest = {
      ...first,
      stream: false,
      messages: [
        ...first.messages,
        { role: 'assistant', content: [{ type: 'tool_use', id, name: 'Read', input: { file_path: 'x' } }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: '1\tstore 4 is hot' }] },
      ],
    };
    const reply = (await (await request(next)).json()) as { content: unknown[]; stop_reason: string };
    expect(reply).toMatchObject({
      content: [{ type: 'text', text: 'The summary says store 4.' }],
      stop_reason: 'end_turn',
    });
    const counted = (await (await request(next, '/v1/messages/count_tokens')).json()) as { input_tokens: number };
    expect(counted.input_tokens).toBe(promptTokens(asChatRequest(next), rules));
  });

  it("answers a small model's request with the title", async () => {
    const reply = (await (await request({ ...first, model: 'small', stream: false })).json()) as { content: unknown[] };
    expect(reply.content).toEqual([{ type: 'text', text: 'A title' }]);
  });

  it('holds a step’s answer until released, then answers every held one and those to come at once', async () => {
    const held = new HeldAnswers();
    let arrived = () => {};
    const inside = new Promise<void>((done) => (arrived = done));
    const slow = scriptedModelApp({ script, smallModels: ['small'], held, onMessagesRequest: () => arrived() });
    const ask = () =>
      slow.request('/v1/messages', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          ...first,
          stream: false,
          messages: [{ role: 'user', content: 'Please take your time' }],
        }),
      });
    let answered = false;
    const waiting = Promise.resolve(ask()).then((r) => ((answered = true), r.json()));
    // The request is in and answered as far as the wait; a turn of the event loop later it still waits.
    await inside;
    await new Promise((done) => setImmediate(done));
    expect(answered).toBe(false);
    held.release();
    expect(((await waiting) as { content: unknown[] }).content).toEqual([{ type: 'text', text: 'Late.' }]);
    expect(((await (await ask()).json()) as { content: unknown[] }).content).toEqual([{ type: 'text', text: 'Late.' }]);
  });
});
