/**
 * Decides whether composer input is a command. Only a `/` as the very first character makes
 * one; `//text` is the escape for sending `/text` literally.
 */
export type ParsedInput =
  { kind: 'text'; text: string } | { kind: 'command'; name: string; args: string[]; raw: string };

export function parseInput(input: string): ParsedInput {
  if (!input.startsWith('/')) return { kind: 'text', text: input };
  if (input.startsWith('//')) return { kind: 'text', text: input.slice(1) };
  const body = input.slice(1).trim();
  const [name = '', ...args] = body.split(/\s+/).filter((word) => word.length > 0);
  return { kind: 'command', name: name.toLowerCase(), args, raw: input.trim() };
}

/** The command-name prefix being typed, while the autocomplete should be open: "/de" → "de". */
export function commandPrefix(input: string): string | null {
  const match = /^\/([\w-]*)$/.exec(input);
  return match ? match[1]!.toLowerCase() : null;
}
