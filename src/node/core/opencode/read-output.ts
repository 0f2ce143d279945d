/**
 * A file's lines as OpenCode's read tool (1.18.33) shows them to the model: inside `<content>`,
 * one `N: text` line per line of the file, then "(End of file - total N lines)" or "(Showing
 * lines A-B of N. …)". Null when the text is no read output. Pure.
 */
import type { FileLine } from '../narrower-read';

export function readOutputLines(text: string): { lines: FileLine[]; total: number } | null {
  const start = text.indexOf('<content>');
  if (start < 0) return null;
  const end = text.indexOf('</content>', start);
  const body = text.slice(start + '<content>'.length, end < 0 ? undefined : end);
  const lines: FileLine[] = [];
  for (const line of body.split('\n')) {
    const match = /^(\d+): ?(.*)$/.exec(line);
    if (match) lines.push({ n: Number(match[1]), text: match[2]! });
  }
  if (lines.length === 0) return null;
  const total = /total (\d+) lines\)|of (\d+)\. Use offset/.exec(body);
  return { lines, total: Number(total?.[1] ?? total?.[2] ?? lines.at(-1)!.n) };
}
