/** A pure registry of slash commands: register, look up, list and match for autocomplete. */
import type { Command } from './types';

export class CommandRegistry {
  private readonly byName = new Map<string, Command>();
  private readonly ordered: Command[] = [];

  constructor(commands: readonly Command[] = []) {
    for (const command of commands) this.register(command);
  }

  register(command: Command): void {
    const names = [command.name, ...(command.aliases ?? [])];
    for (const name of names) {
      if (!/^[a-z][\w-]*$/.test(name)) throw new Error(`invalid command name "/${name}"`);
      if (this.byName.has(name)) throw new Error(`command "/${name}" is already registered`);
    }
    for (const name of names) this.byName.set(name, command);
    this.ordered.push(command);
  }

  get(name: string): Command | undefined {
    return this.byName.get(name.toLowerCase());
  }

  list(): readonly Command[] {
    return this.ordered;
  }

  /** Commands whose name or alias starts with the prefix, exact and name matches first. */
  match(prefix: string): Command[] {
    const p = prefix.toLowerCase();
    return this.ordered
      .filter((c) => c.name.startsWith(p) || (c.aliases ?? []).some((a) => a.startsWith(p)))
      .sort(
        (a, b) =>
          Number(b.name === p) - Number(a.name === p) ||
          Number(b.name.startsWith(p)) - Number(a.name.startsWith(p)) ||
          a.name.localeCompare(b.name),
      );
  }
}
