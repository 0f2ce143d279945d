import type { Command, CommandContext } from './types';

export const helpCommand = {
  name: 'help' as const,
  description: 'List the chat commands',
  usage: '/help',
  run(ctx: CommandContext) {
    ctx.appendLocalMessage({
      kind: 'help',
      commands: ctx.listCommands().map(({ name, usage, description }) => ({ name, usage, description })),
    });
  },
} satisfies Command;
