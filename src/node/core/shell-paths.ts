/**
 * Paths a shell command names, for attribution by what it reads (`grep … evidence/app.log`,
 * `cat meta/cluster.json`). Parsed with shell-quote, so quotes, pipes and redirections are
 * read as a shell would; program names, flags and redirection targets (written, not read)
 * are left out, and a glob names the folder it searches. Candidates only: the caller keeps
 * those that are workspace paths (a bare word, such as a grep pattern, only if it exists).
 */
import { parse, type ParseEntry } from 'shell-quote';

const COMMAND_BREAKS = new Set(['|', '||', '&&', ';', '&', '(', ')', '|&', ';;']);
const WRITES = new Set(['>', '>>', '>&', '<(']);

// Agents repeat commands; parsing is the costly part. Bounded, memory only.
const memo = new Map<string, string[]>();
const MEMO_ENTRIES = 2000;

export function shellPaths(command: string): string[] {
  let found = memo.get(command);
  if (!found) {
    found = parseShellPaths(command);
    if (memo.size >= MEMO_ENTRIES) memo.delete(memo.keys().next().value!);
    memo.set(command, found);
  }
  return found;
}

function parseShellPaths(command: string): string[] {
  let entries: ParseEntry[];
  try {
    // Variables stay as written ($HOME), never expanded to nothing.
    entries = parse(command, (name) => `$${name}`);
  } catch {
    return [];
  }
  const out: string[] = [];
  let atCommand = true;
  let afterWrite = false;
  for (const entry of entries) {
    if (typeof entry === 'object' && entry !== null && 'op' in entry) {
      if (entry.op === 'glob') {
        if (!atCommand && !afterWrite) out.push(globFolder((entry as { pattern: string }).pattern));
        atCommand = false;
        afterWrite = false;
      } else {
        atCommand = COMMAND_BREAKS.has(entry.op);
        afterWrite = WRITES.has(entry.op);
      }
      continue;
    }
    if (typeof entry !== 'string') continue;
    if (atCommand) {
      // `FOO=bar cmd …` assignments come before the program name.
      if (!/^[A-Za-z_][A-Za-z0-9_]*=/.test(entry)) atCommand = false;
      continue;
    }
    if (afterWrite) {
      afterWrite = false;
      continue;
    }
    const value = entry.startsWith('-') ? optionValue(entry) : entry;
    if (value && !value.includes('$')) out.push(value);
  }
  return out;
}

/** `--file=meta/x.json` names meta/x.json; a bare flag names nothing. */
function optionValue(flag: string): string | null {
  const eq = flag.indexOf('=');
  return eq > 0 ? flag.slice(eq + 1) : null;
}

/** `evidence/*.log` searches evidence/. */
function globFolder(pattern: string): string {
  const cut = pattern.search(/[*?[{]/);
  const head = cut < 0 ? pattern : pattern.slice(0, cut);
  const slash = head.lastIndexOf('/');
  return slash < 0 ? '.' : head.slice(0, slash) || '/';
}
