/** /help: the commands, from the same list autocomplete reads. */
import type { Command, CommandSpec } from './types';

export interface HelpOutput {
  commands: Pick<CommandSpec, 'name' | 'usage' | 'description'>[];
}

export const helpCommand = {
  name: 'help' as const,
  description: 'List the chat commands',
  usage: '/help',
  run(ctx) {
    ctx.createOutput({
      commands: ctx.listCommands().map(({ name, usage, description }) => ({ name, usage, description })),
    });
  },
} satisfies Command<HelpOutput>;
