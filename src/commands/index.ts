/**
 * The chat's built-in commands; autocomplete and /help both derive from this one list. Adding a
 * command: its file here, one line below, and one line in the chat's view registry
 * (src/chat/command-views.ts), which the types hold to this list.
 */
import { debugCommand } from './debug';
import { helpCommand } from './help';
import { CommandRegistry } from './registry';
import type { Command, PayloadOf } from './types';

export const builtinCommands = [helpCommand, debugCommand] as const;

export type CommandName = (typeof builtinCommands)[number]['name'];

/** The payload type of each built-in command's output. */
export type CommandPayloads = {
  [C in (typeof builtinCommands)[number] as C['name']]: PayloadOf<C>;
};

export function createCommandRegistry(): CommandRegistry {
  return new CommandRegistry(builtinCommands as readonly Command[]);
}

export { CommandRegistry } from './registry';
export { commandPrefix, parseInput, type ParsedInput } from './parser';
export type { DebugOutput } from './debug';
export type { HelpOutput } from './help';
export type {
  Command,
  CommandContext,
  CommandSpec,
  OutputEntry,
  OutputHandle,
  PayloadOf,
  TranscriptEntry,
  TranscriptEntryBody,
} from './types';
