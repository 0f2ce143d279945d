/**
 * Addresses an allowed host name may not lead to. The allowlist decides by name, but whoever
 * controls a permitted name's DNS decides what it resolves to: a name pointed at the host's own
 * loopback, its interfaces, link-local space (cloud metadata), a private range or a translator
 * into one (NAT64, 6to4, Teredo) would open the host to the agent. So the proxy resolves a name
 * once, drops every address that is not plain global unicast, and connects to an address that
 * passed — the one checked is the one dialled. An IP literal the policy names itself (a LAN model
 * server, say) is the operator's explicit choice and passes.
 *
 * The ranges are the IANA IPv4 and IPv6 Special-Purpose Address Registries
 * (iana.org/assignments/iana-ipv4-special-registry, iana-ipv6-special-registry) and the IPv4
 * multicast and IPv6 address-space registries, as ipaddr.js classifies them (`range()`: every
 * class but `unicast` is denied). What it does not classify is added here, each with its
 * registry entry: IPv4-compatible addresses (::/96, RFC 4291 §2.5.5.1, deprecated), the dummy
 * prefix 100:0:0:1::/64 (RFC 9780), and anything outside 2000::/3, the only IPv6 space IANA
 * allocates as global unicast (IPv6 Address Space registry: the rest is reserved by the IETF).
 */
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { networkInterfaces } from 'node:os';
import ipaddr from 'ipaddr.js';

type IPv4 = ipaddr.IPv4;
type IPv6 = ipaddr.IPv6;

/** ipaddr.js's class names, in words. */
const CLASS_WORDS: Record<string, string> = {
  unspecified: 'an unspecified address',
  broadcast: 'the broadcast address',
  multicast: 'a multicast address',
  linkLocal: 'a link-local address',
  loopback: 'the host’s loopback',
  carrierGradeNat: 'a shared (carrier-grade NAT) address',
  private: 'a private address',
  reserved: 'a reserved or documentation address',
  benchmarking: 'a benchmarking address',
  amt: 'an AMT relay address',
  as112: 'an AS112 address',
  as112v6: 'an AS112 address',
  uniqueLocal: 'a unique local address',
  ipv4Mapped: 'an IPv4-mapped address',
  deprecatedSiteLocal: 'a site-local address',
  discard: 'a discard-only address',
  rfc6145: 'an IPv4-translated address',
  rfc6052: 'a NAT64 address',
  '6to4': 'a 6to4 address',
  teredo: 'a Teredo address',
  deprecatedOrchid: 'an ORCHID address',
  orchid2: 'an ORCHIDv2 address',
  droneRemoteIdProtocolEntityTags: 'a drone remote ID address',
  segmentRouting: 'a segment routing address',
};

/** What ipaddr.js does not classify (see the header), with a class name of our own. */
const MORE_IPV6: readonly { range: string; words: string; cidr: [IPv6, number] }[] = [
  { range: 'compatible', words: 'an IPv4-compatible address', cidr: ipaddr.IPv6.parseCIDR('::/96') },
  { range: 'dummy', words: 'a dummy-prefix address', cidr: ipaddr.IPv6.parseCIDR('100:0:0:1::/64') },
];
const GLOBAL_UNICAST = ipaddr.IPv6.parseCIDR('2000::/3');

/** The IPv4 address an IPv6 address carries, for the classes that carry one (RFC 6052, 3056, 4380, 4291). */
function embeddedIPv4(address: IPv6, range: string): IPv4 | null {
  const bytes = address.toByteArray();
  const at = (offset: number, flip = 0) => new ipaddr.IPv4(bytes.slice(offset, offset + 4).map((b) => b ^ flip));
  if (range === 'ipv4Mapped' || range === 'rfc6145' || range === 'rfc6052' || range === 'compatible') return at(12);
  if (range === '6to4') return at(2);
  if (range === 'teredo') return at(12, 0xff); // the client's address, obfuscated (RFC 4380 §4)
  return null;
}

/** Why an IPv4 address is denied (its class), or null for global unicast. */
function deniedIPv4(address: IPv4): string | null {
  const range = address.range();
  return range === 'unicast' ? null : (CLASS_WORDS[range] ?? `a special-purpose address (${range})`);
}

/** Why an IPv6 address is denied, naming the IPv4 address it carries, or null for global unicast. */
function deniedIPv6(address: IPv6): string | null {
  const named = address.range();
  const more = named === 'unicast' ? MORE_IPV6.find((m) => address.match(m.cidr)) : undefined;
  const range = more?.range ?? named;
  const words = more?.words ?? CLASS_WORDS[named] ?? `a special-purpose address (${named})`;
  if (range === 'unicast') {
    return address.match(GLOBAL_UNICAST) ? null : 'an address outside IPv6 global unicast (2000::/3)';
  }
  const inner = embeddedIPv4(address, range);
  if (!inner) return words;
  const innerWhy = deniedIPv4(inner);
  return `${words} carrying ${inner.toString()}${innerWhy ? ` (${innerWhy})` : ''}`;
}

/**
 * The address as it is dialled: IPv6 in its canonical form first (ipaddr.js reads `::127.0.0.1`,
 * an IPv4-compatible address, as the mapped `::ffff:127.0.0.1`; the URL parser, like the socket,
 * reads it as ::7f00:1), the zone dropped (it names an interface, not a range). `::ffff:10.0.0.1`
 * is 10.0.0.1: a mapped address is dialled as its IPv4 address, and judged as one.
 */
function plain(address: string): IPv4 | IPv6 {
  if (isIP(address) === 4) return ipaddr.IPv4.parse(address);
  const canonical = new URL(`http://[${address.replace(/%.*$/, '')}]/`).hostname.slice(1, -1);
  const parsed = ipaddr.IPv6.parse(canonical);
  return parsed.isIPv4MappedAddress() ? parsed.toIPv4Address() : parsed;
}

/** Why the agent may not reach this address, or null when it may. */
export function deniedAddress(address: string): string | null {
  if (!isIP(address)) return 'not an IP address';
  const ip = plain(address);
  const denied = ip.kind() === 'ipv4' ? deniedIPv4(ip as IPv4) : deniedIPv6(ip as IPv6);
  if (denied) return denied;
  const text = ip.toString();
  for (const addresses of Object.values(networkInterfaces())) {
    if (addresses?.some((a) => isIP(a.address) && plain(a.address).toString() === text))
      return 'one of the host’s own addresses';
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
