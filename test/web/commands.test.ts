/** The slash-command registry, parser and matcher: pure, no React. */
import { describe, expect, it } from 'vitest';
import {
  builtinCommands,
  commandPrefix,
  CommandRegistry,
  createCommandRegistry,
  parseInput,
  type Command,
} from '../../src/commands';

const noop = (name: string, aliases?: string[]): Command => ({
  name,
  description: `${name} it`,
  usage: `/${name}`,
  ...(aliases ? { aliases } : {}),
  run: () => {},
});

describe('parseInput', () => {
  it('treats input as a command only when / is the first character', () => {
    expect(parseInput('/debug')).toEqual({ kind: 'command', name: 'debug', args: [], raw: '/debug' });
    expect(parseInput('/debug  ses_1   x ')).toEqual({
      kind: 'command',
      name: 'debug',
      args: ['ses_1', 'x'],
      raw: '/debug  ses_1   x',
    });
    expect(parseInput(' /debug')).toEqual({ kind: 'text', text: ' /debug' });
    expect(parseInput('use /debug later')).toEqual({ kind: 'text', text: 'use /debug later' });
    expect(parseInput('/DEBUG').kind === 'command' && parseInput('/DEBUG')).toMatchObject({ name: 'debug' });
  });

  it('sends //text as /text literally', () => {
    expect(parseInput('//debug is a command')).toEqual({ kind: 'text', text: '/debug is a command' });
  });

  it('gives a bare slash an empty name (an unknown command)', () => {
    expect(parseInput('/')).toMatchObject({ kind: 'command', name: '' });
  });
});

describe('commandPrefix', () => {
  it('is the name being typed, until a space or a second slash', () => {
    expect(commandPrefix('/')).toBe('');
    expect(commandPrefix('/de')).toBe('de');
    expect(commandPrefix('/debug ')).toBeNull();
    expect(commandPrefix('//de')).toBeNull();
    expect(commandPrefix('hello')).toBeNull();
  });
});

describe('CommandRegistry', () => {
  it('registers, gets (also by alias, any case) and lists in order', () => {
    const registry = new CommandRegistry([noop('help'), noop('debug', ['ctx'])]);
    expect(registry.get('DEBUG')?.name).toBe('debug');
    expect(registry.get('ctx')?.name).toBe('debug');
    expect(registry.get('nope')).toBeUndefined();
    expect(registry.list().map((c) => c.name)).toEqual(['help', 'debug']);
  });

  it('rejects duplicate names and aliases, and invalid names', () => {
    const registry = new CommandRegistry([noop('debug', ['ctx'])]);
    expect(() => registry.register(noop('debug'))).toThrow(/already registered/);
    expect(() => registry.register(noop('other', ['ctx']))).toThrow(/already registered/);
    expect(() => registry.register(noop('Bad Name'))).toThrow(/invalid/);
    expect(registry.list()).toHaveLength(1);
  });

  it('matches prefixes for autocomplete, exact match first', () => {
    const registry = new CommandRegistry([noop('deploy'), noop('debug'), noop('help'), noop('de')]);
    expect(registry.match('de').map((c) => c.name)).toEqual(['de', 'debug', 'deploy']);
    expect(registry.match('').map((c) => c.name)).toEqual(['de', 'debug', 'deploy', 'help']);
    expect(registry.match('x')).toEqual([]);
  });

  it('ships /help and /debug with usage and descriptions', () => {
    const registry = createCommandRegistry();
    expect(registry.list().map((c) => c.usage)).toEqual(['/help', '/debug [session-id]']);
    expect(builtinCommands.every((c) => c.description.length > 10)).toBe(true);
  });
});

describe('commands own their output', () => {
  it('every built-in command has exactly one view, registered under its name', async () => {
    const { commandViews } = await import('../../src/chat/command-views');
    expect(Object.keys(commandViews).sort()).toEqual(builtinCommands.map((c) => c.name).sort());
  });

  it('keeps a generic transcript: a command creates its output and updates it; nothing is special-cased', async () => {
    const { useTranscriptStore } = await import('../../src/chat/local-messages-store');
    const { localMessageAdded, commandOutputUpdated, localMessageDismissed } = useTranscriptStore.getState().actions;
    const echo = localMessageAdded('ws', { kind: 'command-echo', text: '/ping' });
    const id = localMessageAdded('ws', { kind: 'output', command: 'ping', commandLine: '/ping', payload: { n: 1 } });
    commandOutputUpdated(id, { n: 2 });
    commandOutputUpdated(echo, { n: 3 }); // only outputs carry a payload
    const entries = useTranscriptStore.getState().entries;
    expect(entries.map((e) => e.kind)).toEqual(['command-echo', 'output']);
    expect(entries[1]).toMatchObject({ command: 'ping', payload: { n: 2 }, workspaceId: 'ws' });
    expect(entries[0]).not.toHaveProperty('payload');
    localMessageDismissed(id);
    expect(useTranscriptStore.getState().entries).toHaveLength(1);
  });
});
