/**
 * A process tree as the kernel sees it (/proc), for tests that look at what an agent process
 * and everything it started listen on, and try it from its own network namespace — as root, or as
 * another user (nobody) — with test/support/net-probe.mjs.
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';

const PROBE = join(import.meta.dirname, 'net-probe.mjs');
export const NOBODY = 65534;

/** `pid` and every process below it. */
export function processTree(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // The command name may hold spaces and parentheses: the fields after its last ")".
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      // gone meanwhile
    }
  }
  const out: number[] = [];
  const walk = (p: number) => {
    out.push(p);
    for (const child of children.get(p) ?? []) walk(child);
  };
  walk(pid);
  return out;
}

export interface Listener {
  /** A process of the tree that holds it (its network namespace is the one to try it from). */
  pid: number;
  kind: 'tcp' | 'unix';
  /** tcp: the address and port in that namespace; unix: the socket's path. */
  address: string;
  port?: number;
  netns: string;
}

const socketInodes = (pid: number): Set<string> => {
  const inodes = new Set<string>();
  try {
    for (const fd of readdirSync(`/proc/${pid}/fd`)) {
      try {
        const match = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
        if (match) inodes.add(match[1]!);
      } catch {
        // closed meanwhile
      }
    }
  } catch {
    // gone
  }
  return inodes;
};

function hexAddress(hex: string): string {
  if (hex.length === 8)
    return hex
      .match(/../g)!
      .reverse()
      .map((b) => parseInt(b, 16))
      .join('.');
  // IPv6, in four little-endian words: only loopback and "any" matter here.
  if (/^0{24}01000000$/i.test(hex)) return '::1';
  if (/^0{32}$/.test(hex)) return '::';
  return hex;
}

/** Every socket a process of the tree listens on: TCP (IPv4 and IPv6) and Unix. */
export function listeners(pids: readonly number[]): Listener[] {
  const found = new Map<string, Listener>();
  for (const pid of pids) {
    const inodes = socketInodes(pid);
    if (inodes.size === 0) continue;
    let netns: string;
    try {
      netns = readlinkSync(`/proc/${pid}/ns/net`);
    } catch {
      continue;
    }
    for (const file of ['tcp', 'tcp6']) {
      let table: string;
      try {
        table = readFileSync(`/proc/${pid}/net/${file}`, 'utf8');
      } catch {
        continue;
      }
      for (const line of table.trim().split('\n').slice(1)) {
        const fields = line.trim().split(/\s+/);
        const [local, , state] = [fields[1]!, fields[2]!, fields[3]!];
        const inode = fields[9]!;
        if (state !== '0A' || !inodes.has(inode)) continue;
        const [address, port] = local.split(':') as [string, string];
        found.set(`${netns} ${inode}`, {
          pid,
          kind: 'tcp',
          address: hexAddress(address),
          port: parseInt(port, 16),
          netns,
        });
      }
    }
    try {
      for (const line of readFileSync(`/proc/${pid}/net/unix`, 'utf8').trim().split('\n').slice(1)) {
        const fields = line.trim().split(/\s+/);
        const listening = (parseInt(fields[3]!, 16) & 0x10000) !== 0;
        if (!listening || !inodes.has(fields[6]!) || !fields[7]) continue;
        found.set(`${netns} ${fields[6]}`, { pid, kind: 'unix', address: fields[7], netns });
      }
    } catch {
      // no unix table
    }
  }
  return [...found.values()];
}

export type ProbeTry =
  | {
      kind: 'http';
      host: string;
      port: number;
      method?: string;
      path: string;
      headers?: Record<string, string>;
      body?: string;
    }
  | { kind: 'tcp'; host: string; port: number }
  | { kind: 'connect'; proxyPort: number; target: string };

export type ProbeAnswer = { status?: number; body?: string; error?: string; connected?: boolean };

/**
 * The tries, from the network namespace of `pid` (null: the host's own), as `uid` (root by
 * default; NOBODY: a user with no rights to anything of investibook's or the agent's). Never
 * synchronous: the agent's ways out are served by this very process (the bridge's sockets).
 */
export async function probe(pid: number | null, tries: ProbeTry[], uid = 0): Promise<ProbeAnswer[]> {
  const node = [process.execPath, PROBE, JSON.stringify(tries)];
  const asUser = uid === 0 ? node : ['setpriv', `--reuid=${uid}`, `--regid=${uid}`, '--clear-groups', ...node];
  const command = pid === null ? asUser : ['nsenter', `--net=/proc/${pid}/ns/net`, '--', ...asUser];
  const child = spawn(command[0]!, command.slice(1), { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const code = await new Promise<number | null>((done) => child.once('exit', done));
  if (code !== 0) throw new Error(`probe failed (${code}): ${stderr}`);
  return JSON.parse(stdout) as ProbeAnswer[];
}

/** A process's environment variable (an agent's own secret, as a command of its own could read it). */
export function environ(pid: number, name: string): string | undefined {
  const entries = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
  return entries.find((e) => e.startsWith(`${name}=`))?.slice(name.length + 1);
}

/** The command line of a process, as words. */
export function commandLine(pid: number): string[] {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
  } catch {
    return [];
  }
}
