/**
 * The narrower read a large file read could have been, picked from the file's own lines as the
 * model read them and from what the model quoted of it since (the `code spans` of its replies,
 * reasoning and tool calls): the section of the file's structure that holds most of what it
 * quoted — a log entry, a Markdown section, a paragraph — as a line range, and the quoted
 * fragment that names the fewest lines as a search pattern. Without a quote that the file
 * holds, a log's error lines as the pattern. Deterministic and pure.
 */

import type { FileLine, NarrowerRead } from './types';

export type { FileLine, NarrowerRead };

/** Fragments shorter than this say too little to find a section by. */
const MIN_FRAGMENT = 6;
const MAX_FRAGMENTS = 60;
/** A section longer than this is cut around its first quoted line. */
const MAX_SECTION = 80;
const ERROR_WORDS = ['FATAL', 'PANIC', 'ERROR', 'panic', 'Exception', 'Traceback', 'error', 'WARN', 'failed'];

/** The `code spans` of a text the model wrote (not fenced blocks: those are its own code). */
export function quotedSpans(text: string): string[] {
  const unfenced = text.replace(/```[\s\S]*?```/g, ' ');
  const out: string[] = [];
  for (const match of unfenced.matchAll(/`([^`\n]{2,300})`/g)) out.push(match[1]!);
  return out;
}

/** The quotes' fragments worth looking for: split at elisions and placeholders, long enough, once each. */
function fragmentsOf(quotes: readonly string[]): string[] {
  const seen = new Set<string>();
  for (const quote of quotes) {
    for (const piece of quote.split(/…|\.\.\.|\s\?\s?|=\s*\?/)) {
      const fragment = piece.trim();
      if (fragment.length >= MIN_FRAGMENT && !seen.has(fragment)) seen.add(fragment);
      if (seen.size >= MAX_FRAGMENTS) return [...seen];
    }
  }
  return [...seen];
}

type Sections = { kind: 'entry' | 'section' | 'paragraph' | 'lines'; ranges: [number, number][] };

/** The file's sections, as index ranges into `lines`: repeated entry headers, Markdown headings, paragraphs. */
function sections(lines: readonly FileLine[]): Sections {
  const split = (kind: Sections['kind'], starts: number[]): Sections => ({
    kind,
    ranges: starts.map((start, k) => [start, (starts[k + 1] ?? lines.length) - 1]),
  });
  const first = lines.findIndex((l) => l.text.trim() !== '');
  // An entry header: the first line's leading marks and word ("# Time:", "[2026-…", "INFO"), repeated.
  const head = first < 0 ? null : /^[^\p{L}\p{N}]*[\p{L}\p{N}_]+[:\]]?/u.exec(lines[first]!.text)?.[0];
  if (head && head.length >= 3) {
    const starts = lines.flatMap((l, i) => (l.text.startsWith(head) ? [i] : []));
    if (starts.length >= 2 && lines.length / starts.length >= 3)
      return split('entry', starts[0] === 0 ? starts : [0, ...starts]);
  }
  const headings = lines.flatMap((l, i) => (/^#{1,6}\s/.test(l.text) ? [i] : []));
  if (headings.length >= 2) return split('section', headings[0] === 0 ? headings : [0, ...headings]);
  const paragraphs = lines.flatMap((l, i) =>
    l.text.trim() !== '' && (i === 0 || lines[i - 1]!.text.trim() === '') ? [i] : [],
  );
  if (paragraphs.length >= 2) return split('paragraph', paragraphs);
  const ranges: [number, number][] = [];
  for (let i = 0; i < lines.length; i += MAX_SECTION) ranges.push([i, Math.min(lines.length, i + MAX_SECTION) - 1]);
  return { kind: 'lines', ranges };
}

export function narrowerRead(lines: readonly FileLine[], quotes: readonly string[], totalLines?: number): NarrowerRead {
  const total = Math.max(totalLines ?? 0, lines.at(-1)?.n ?? 0);
  const out: NarrowerRead = { totalLines: total };
  if (lines.length === 0) return out;
  const found = fragmentsOf(quotes)
    .map((text) => ({ text, at: lines.flatMap((l, i) => (l.text.includes(text) ? [i] : [])) }))
    .filter((f) => f.at.length > 0);
  if (found.length > 0) {
    const parts = sections(lines);
    let best: { section: [number, number]; score: number } | null = null;
    for (const section of parts.ranges) {
      const score = found.filter((f) => f.at.some((i) => i >= section[0] && i <= section[1])).length;
      if (score > 0 && (!best || score > best.score)) best = { section, score };
    }
    if (best) {
      let [from, to] = best.section;
      if (to - from + 1 > MAX_SECTION) {
        const firstQuoted = Math.min(...found.flatMap((f) => f.at.filter((i) => i >= from && i <= to)));
        from = Math.max(from, firstQuoted - 10);
        to = Math.min(to, from + MAX_SECTION - 1);
      }
      const inside = found.filter((f) => f.at.some((i) => i >= from && i <= to));
      const what = parts.kind === 'lines' ? 'the lines that hold' : `the ${parts.kind} that holds`;
      out.range = { from: lines[from]!.n, to: lines[to]!.n, what: `${what} most of what you quoted from it` };
      // The quoted fragment that names the fewest lines: the most specific thing to search for.
      const pick = [...inside].sort((a, b) => a.at.length - b.at.length)[0]!;
      if (pick.at.length < lines.length)
        out.pattern = { text: pick.text, lines: pick.at.length, what: 'what you quoted' };
      return out;
    }
  }
  // Nothing quoted that the file holds: a log's error lines, when they are a minority.
  const words = ERROR_WORDS.filter((w) => lines.some((l) => l.text.includes(w)));
  const hits = lines.filter((l) => words.some((w) => l.text.includes(w))).length;
  if (words.length > 0 && hits <= lines.length / 2)
    out.pattern = {
      text: words[0]!,
      lines: lines.filter((l) => l.text.includes(words[0]!)).length,
      what: 'its error lines',
    };
  return out;
}
