/**
 * OpenCode's request view, rule by rule, on the shapes the real runtime wrote (the recordings
 * of npm run record:opencode). Where a rule needs a shape the recordings lack, it is made by
 * changing one field of a recorded message, never by writing a message from scratch.
 */
import { describe, expect, it } from 'vitest';
import { parsePart, type Part } from '../../src/shared/opencode/format';
import { liveWindow, messageView, toolResult, type StoredMessage } from '../../src/node/core/opencode/request-view';
import { messagesOf } from '../support/recordings';

const ignore = () => {};

const find = (messages: StoredMessage[], test: (m: StoredMessage) => boolean) => {
  const found = messages.find(test);
  if (!found) throw new Error('no such message in the recording');
  return found;
};
const partsOf = (m: StoredMessage, type: Part['type']) => m.parts.filter((p) => p?.type === type);

describe('filterCompacted: which messages are sent', () => {
  it('starts at the latest completed compaction and reads the kept tail after the summary', () => {
    const messages = messagesOf('compaction-tail');
    const request = messages.findIndex((m) => partsOf(m, 'compaction').length > 0);
    const compaction = partsOf(messages[request]!, 'compaction')[0] as Extract<Part, { type: 'compaction' }>;
    expect(compaction.tailStartId).toBeDefined();
    const tail = messages.findIndex((m) => m.id === compaction.tailStartId);
    const summary = messages.findIndex((m) => m.info.summary);
    expect(tail).toBeGreaterThan(0);
    expect(tail).toBeLessThan(request);

    const { order, history } = liveWindow(messages);
    // [compaction request, summary, tail…, the rest]
    expect(order.slice(0, 2)).toEqual([request, summary]);
    expect(order.slice(2, 2 + (request - tail))).toEqual(Array.from({ length: request - tail }, (_, k) => tail + k));
    expect(order.slice(2 + (request - tail))).toEqual(
      Array.from({ length: messages.length - summary - 1 }, (_, k) => summary + 1 + k),
    );
    expect(history).toEqual(Array.from({ length: tail }, (_, k) => k));
  });

  it('ignores a compaction whose summary did not finish, or failed', () => {
    const messages = messagesOf('compaction-tail');
    const summary = messages.findIndex((m) => m.info.summary);
    const unfinished = messages.map((m, i) => (i === summary ? { ...m, info: { ...m.info, finish: undefined } } : m));
    expect(liveWindow(unfinished).history).toEqual([]);
    const failed = messages.map((m, i) => (i === summary ? { ...m, info: { ...m.info, error: 'APIError' } } : m));
    expect(liveWindow(failed).history).toEqual([]);
  });

  it('keeps no tail when the compaction names none (automatic compaction of one long turn)', () => {
    const messages = messagesOf('auto-compaction');
    const request = messages.findIndex((m) => partsOf(m, 'compaction').length > 0);
    const compaction = partsOf(messages[request]!, 'compaction')[0] as Extract<Part, { type: 'compaction' }>;
    expect(compaction.auto).toBe(true);
    expect(compaction.tailStartId).toBeUndefined();
    const { order, history } = liveWindow(messages);
    expect(order[0]).toBe(request);
    expect(history).toEqual(Array.from({ length: request }, (_, k) => k));
  });
});

describe('toModelMessages: what each message sends', () => {
  it('sends the compaction request as "What did we do so far?"', () => {
    const messages = messagesOf('compaction-tail');
    const request = find(messages, (m) => partsOf(m, 'compaction').length > 0);
    expect(messageView(request).sent).toEqual([
      expect.objectContaining({ kind: 'compaction', text: 'What did we do so far?' }),
    ]);
  });

  it('sends a pruned output as the placeholder, and the output whole until it was pruned', () => {
    const messages = messagesOf('pruning');
    const pruned = messages.flatMap((m) => m.parts).filter((p) => p?.type === 'tool' && p.time.compacted !== undefined);
    expect(pruned.length).toBeGreaterThan(0);
    const part = pruned[0] as Extract<Part, { type: 'tool' }>;
    expect(toolResult(part)).toEqual({ form: 'pruned', text: '[Old tool result content cleared]' });
    expect(toolResult(part, part.time.compacted!)).toMatchObject({ form: 'output', text: part.output });
  });

  it('never sends a reply that failed, but sends an interrupted one that has work in it', () => {
    const messages = messagesOf('faults');
    const failed = find(messages, (m) => m.info.error === 'APIError');
    expect(messageView(failed)).toMatchObject({ skipped: 'error', sent: [] });
    const cancelled = find(messages, (m) => m.info.error === 'MessageAbortedError');
    const view = messageView(cancelled);
    expect(view.skipped).toBeNull();
    expect(view.sent).toEqual([expect.objectContaining({ kind: 'tool' })]);
    // An aborted reply with nothing but its step-start and reasoning is not sent.
    const empty = { ...cancelled, parts: cancelled.parts.filter((p) => p?.type === 'step-start') };
    expect(messageView(empty).skipped).toBe('error');
  });

  it('sends a tool error as its error text, or the output of an interrupted call', () => {
    const messages = messagesOf('faults');
    const missing = messages.flatMap((m) => m.parts).find((p) => p?.type === 'tool' && p.status === 'error');
    expect(toolResult(missing as Extract<Part, { type: 'tool' }>)).toMatchObject({
      form: 'error',
      text: expect.stringContaining('File not found'),
    });
    const interrupted = {
      ...(missing as Extract<Part, { type: 'tool' }>),
      metadata: { interrupted: true, output: 'partial' },
    };
    expect(toolResult(interrupted)).toEqual({ form: 'interrupted-output', text: 'partial' });
    expect(toolResult({ ...interrupted, status: 'running' })).toEqual({
      form: 'interrupted',
      text: '[Tool execution was interrupted]',
    });
  });

  it('does not send text/plain or folder file parts (their reads are sent), but does send an image', () => {
    const attached = find(messagesOf('faults'), (m) => partsOf(m, 'file').length === 2);
    const view = messageView(attached);
    expect(view.omitted.filter((o) => o.kind === 'file-read-at-prompt')).toHaveLength(2);
    expect(view.sent.filter((p) => p.kind === 'text' && p.synthetic)).toHaveLength(4);
    const image = find(messagesOf('demo-incident'), (m) =>
      partsOf(m, 'file').some((p) => p?.type === 'file' && p.mime === 'image/png'),
    );
    expect(messageView(image).sent.some((p) => p.kind === 'file' && p.file.mime === 'image/png')).toBe(true);
  });

  it('sends a subtask as the fixed sentence, never its prompt, and leaves ignored text out', () => {
    const user = messagesOf('fresh')[0]!;
    const subtask = parsePart(
      { type: 'subtask', prompt: 'SECRET PROMPT', description: 'check PD', agent: 'general' },
      ignore,
    )!;
    const ignored = parsePart({ type: 'text', text: 'not for the model', ignored: true }, ignore)!;
    const view = messageView({ ...user, parts: [...user.parts, subtask, ignored] });
    expect(view.sent.at(-1)).toMatchObject({ kind: 'subtask', text: 'The following tool was executed by the user' });
    expect(JSON.stringify(view.sent)).not.toContain('SECRET PROMPT');
    expect(view.omitted).toEqual([expect.objectContaining({ kind: 'ignored-text' })]);
  });

  it("sends reasoning back, as text when another model wrote it, and drops Anthropic's unsigned reasoning", () => {
    const reply = find(messagesOf('fresh'), (m) => partsOf(m, 'reasoning').length > 0);
    expect(messageView(reply).sent.some((p) => p.kind === 'reasoning')).toBe(true);
    expect(messageView(reply, { targetModel: 'other/model' }).sent.some((p) => p.kind === 'reasoning')).toBe(true);
    const anthropic = { ...reply, info: { ...reply.info, providerID: 'anthropic' } };
    const view = messageView(anthropic, { targetModel: 'anthropic/scripted' });
    expect(view.sent.some((p) => p.kind === 'reasoning')).toBe(false);
    expect(view.omitted.some((o) => o.kind === 'unsigned-reasoning')).toBe(true);
  });

  it('never sends bookkeeping parts, and nothing of a reply made of step-start alone', () => {
    const reply = find(messagesOf('fresh'), (m) => m.info.role === 'assistant');
    const kinds = messageView(reply).omitted.map((o) => o.kind);
    expect(kinds.every((k) => k === 'bookkeeping')).toBe(true);
    expect(kinds.length).toBeGreaterThanOrEqual(2); // step-start and step-finish
    const bare = { ...reply, parts: reply.parts.filter((p) => p?.type === 'step-start') };
    expect(messageView(bare).skipped).toBe('empty');
  });
});
