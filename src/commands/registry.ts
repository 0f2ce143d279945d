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

  /**
   * The command a mistyped name most likely meant ("debgu" → debug): the nearest name or alias
   * within two edits (a swap of neighbours is one), or one the name starts with; none when unsure.
   */
  suggest(name: string): Command | undefined {
    const typed = name.toLowerCase();
    if (typed === '') return undefined;
    let best: { command: Command; distance: number } | undefined;
    for (const [known, command] of this.byName) {
      const distance = known.startsWith(typed) || typed.startsWith(known) ? 1 : editDistance(typed, known);
      if (distance <= Math.min(2, Math.max(1, Math.floor(known.length / 2))) && (!best || distance < best.distance))
        best = { command, distance };
    }
    return best?.command;
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

/** Optimal string alignment distance: insertions, deletions, substitutions and swaps of neighbours. */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        value = Math.min(value, d[i - 2]![j - 2]! + 1);
      d[i]![j] = value;
    }
  }
  return d[a.length]![b.length]!;
}
