/** The chat's built-in commands; autocomplete and /help both derive from this one list. */
import { debugCommand } from './debug';
import { helpCommand } from './help';
import { CommandRegistry } from './registry';

export const builtinCommands = [helpCommand, debugCommand] as const;

export type CommandName = (typeof builtinCommands)[number]['name'];

export function createCommandRegistry(): CommandRegistry {
  return new CommandRegistry(builtinCommands);
}

export { CommandRegistry } from './registry';
export { commandPrefix, parseInput, type ParsedInput } from './parser';
export type { Command, CommandContext, CommandSpec, LocalMessage, LocalMessageBody } from './types';
