/**
 * Addresses an allowed host name may not lead to. The allowlist decides by name, but whoever
 * controls a permitted name's DNS decides what it resolves to: a name pointed at the host's own
 * loopback, its interfaces, link-local space (cloud metadata) or a private range would open the
 * host to the agent. So the proxy resolves a name once, drops every address of these classes, and
 * connects to an address that passed — the one checked is the one dialled. An IP literal the
 * policy names itself (a LAN model server, say) is the operator's explicit choice and passes.
 */
import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { networkInterfaces } from 'node:os';

const CLASSES: readonly [string, readonly string[]][] = [
  ['the host’s loopback', ['127.0.0.0/8', '::1/128']],
  ['an unspecified address', ['0.0.0.0/8', '::/128']],
  ['a link-local address', ['169.254.0.0/16', 'fe80::/10']],
  ['a private address', ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '100.64.0.0/10', 'fc00::/7']],
  ['a multicast or reserved address', ['224.0.0.0/3', 'ff00::/8']],
];

const lists = CLASSES.map(([name, ranges]) => {
  const list = new BlockList();
  for (const range of ranges) {
    const [address, prefix] = range.split('/') as [string, string];
    list.addSubnet(address, Number(prefix), isIP(address) === 6 ? 'ipv6' : 'ipv4');
  }
  return [name, list] as const;
});

/** `::ffff:10.0.0.1` is 10.0.0.1. */
function plain(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return mapped ? mapped[1]! : address;
}

/** Why the agent may not reach this address, or null when it may. */
export function deniedAddress(address: string): string | null {
  const ip = plain(address);
  const family = isIP(ip) === 6 ? 'ipv6' : 'ipv4';
  for (const [name, list] of lists) if (list.check(ip, family)) return name;
  for (const addresses of Object.values(networkInterfaces())) {
    if (addresses?.some((a) => plain(a.address) === ip)) return 'one of the host’s own addresses';
  }
  return null;
}

/**
 * The address to dial for `host`: an IP literal as it is (when `literalAllowed`), a name resolved
 * to its first address that is not denied. Throws with the reason otherwise.
 */
export async function resolveAllowed(
  host: string,
  literalAllowed: boolean,
  resolve: (host: string) => Promise<{ address: string }[]> = (name) => lookup(name, { all: true }),
): Promise<string> {
  if (isIP(host)) {
    const denied = deniedAddress(host);
    if (denied && !literalAllowed) throw new EgressRefused(`${host} is ${denied}`);
    return host;
  }
  let addresses: { address: string }[];
  try {
    addresses = await resolve(host);
  } catch (error) {
    throw new EgressUnreachable(`${host} could not be resolved (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  const denials: string[] = [];
  for (const { address } of addresses) {
    const denied = deniedAddress(address);
    if (!denied) return address;
    denials.push(`${address}: ${denied}`);
  }
  throw new EgressRefused(`${host} resolves only to addresses the agent may not reach (${denials.join('; ')})`);
}

/** The policy says no: 403. */
export class EgressRefused extends Error {
  readonly status = 403;
}

/** Allowed, but not reachable from here: 502. */
export class EgressUnreachable extends Error {
  readonly status = 502;
}
