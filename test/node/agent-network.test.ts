/**
 * The agent's ways out, part by part, on real sockets: which hosts its policy allows (from the
 * configuration it cannot write), the egress proxy's decisions (by name and port, then by the
 * address a name resolves to), the report gateway's one route, and the relay that joins them to
 * the sandbox's loopback. test/agent/agent-reach.test.ts tries the whole from inside a sandbox.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, request, type Server as HttpServer } from 'node:http';
import { connect, createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { deniedAddress } from '../../src/node/agent/network/address-guard';
import { egressPolicy, parseHostEntry, type EgressPolicy } from '../../src/node/agent/network/egress-policy';
import { startEgressProxy, type EgressDecision } from '../../src/node/agent/network/egress-proxy';
import { openRelays } from '../../src/node/agent/network/relay';
import { reportPath, startReportGateway } from '../../src/node/agent/network/report-gateway';

let dir: string;
const closing: (Server | HttpServer)[] = [];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'ib-net-test-'));
});
afterEach(async () => {
  await Promise.all(closing.splice(0).map((s) => new Promise((done) => s.close(done))));
  rmSync(dir, { recursive: true, force: true });
});

const json = (path: string, value: unknown) => {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, JSON.stringify(value));
  return path;
};

describe('the egress policy', () => {
  const input = (over: Partial<Parameters<typeof egressPolicy>[0]> = {}) => ({
    operatorFiles: [],
    workspaceFiles: ['opencode.json', 'opencode.jsonc', '.opencode/opencode.json', '.opencode/opencode.jsonc'].map(
      (name) => join(dir, 'ws', name),
    ),
    workspaceWidens: false,
    env: {},
    authFile: null,
    extra: [],
    ...over,
  });

  it('allows the providers the operator’s configuration names, at their base URL’s host and port', () => {
    const file = json(join(dir, 'config', 'opencode.json'), {
      model: 'anthropic/claude-sonnet-4-5',
      provider: {
        corp: { options: { baseURL: 'https://llm.corp.example:8443/v1' } },
        local: { options: { baseURL: 'http://127.0.0.1:11434/v1' } },
      },
    });
    const { policy, warnings } = egressPolicy(input({ operatorFiles: [file] }));
    expect(policy.hosts.map((h) => `${h.host}:${h.port}`).sort()).toEqual([
      'api.anthropic.com:443',
      'llm.corp.example:8443',
    ]);
    expect(policy.loopback).toMatchObject([{ host: '127.0.0.1', port: 11434 }]);
    expect(policy.open).toBe(false);
    expect(warnings).toEqual([]);
  });

  it('takes providers from the credentials and API-key variables, within enabled_providers', () => {
    const auth = json(join(dir, 'auth.json'), { openai: { type: 'api', key: 'x' } });
    const file = json(join(dir, 'config', 'opencode.json'), { enabled_providers: ['openai', 'groq'] });
    const { policy } = egressPolicy(
      input({ operatorFiles: [file], authFile: auth, env: { GROQ_API_KEY: 'k', ANTHROPIC_API_KEY: 'k' } }),
    );
    expect(policy.hosts.map((h) => h.host).sort()).toEqual(['api.groq.com', 'api.openai.com']);
  });

  it('takes no host from the workspace’s own opencode.json unless the operator lets workspaces widen', () => {
    json(join(dir, 'ws', 'opencode.json'), {
      provider: { mine: { options: { baseURL: 'http://127.0.0.1:5432/v1' } } },
    });
    const tight = egressPolicy(input());
    expect(tight.policy.loopback).toEqual([]);
    expect(tight.warnings.join('\n')).toMatch(/names 127\.0\.0\.1:5432, which its agent's network does not reach/);
    const wide = egressPolicy(input({ workspaceWidens: true }));
    expect(wide.policy.loopback).toMatchObject([{ port: 5432 }]);
  });

  it('adds the operator’s entries, `*` turns the list off, and bad or whole-loopback entries are said', () => {
    const { policy, warnings } = egressPolicy(
      input({ extra: ['*.corp.example', 'models.dev:443', '[::1]:8080', 'localhost', 'not a host', '*'] }),
    );
    expect(policy.open).toBe(true);
    expect(policy.hosts.map((h) => `${h.host}:${h.port}`)).toEqual(['*.corp.example:*', 'models.dev:443']);
    expect(policy.loopback).toMatchObject([{ host: '::1', port: 8080 }]);
    expect(warnings).toHaveLength(2);
    expect(parseHostEntry('api.openai.com:99999')).toBeNull();
  });

  it('says why a local model on a privileged port cannot be reached', () => {
    const file = json(join(dir, 'config', 'opencode.json'), {
      provider: { local: { options: { baseURL: 'http://localhost/v1' } } },
    });
    const { policy, warnings } = egressPolicy(input({ operatorFiles: [file] }));
    expect(policy.loopback).toEqual([]);
    expect(warnings.join('\n')).toMatch(/port 80 .* under 1024/);
  });
});

describe('the address guard', () => {
  it('refuses the host’s loopback and own addresses, link-local, private and reserved ranges; passes public ones', () => {
    for (const address of [
      '127.0.0.1',
      '127.8.9.1',
      '::1',
      '::ffff:127.0.0.1',
      '10.0.0.1',
      '172.20.1.1',
      '192.168.1.1',
    ])
      expect(deniedAddress(address), address).not.toBeNull();
    for (const address of ['169.254.169.254', 'fe80::1', 'fd00::1', '100.64.0.1', '0.0.0.0', '224.0.0.1'])
      expect(deniedAddress(address), address).not.toBeNull();
    for (const address of ['93.184.215.14', '2606:4700::6810:85e5', '8.8.8.8'])
      expect(deniedAddress(address)).toBeNull();
  });

  // One address of every entry of the IANA IPv4 and IPv6 Special-Purpose Address Registries (and the
  // IPv4 multicast and IPv6 address-space registries), with the class the refusal names.
  const SPECIAL: readonly [string, string, RegExp][] = [
    ['0.0.0.0/8 this network', '0.1.2.3', /unspecified/],
    ['10.0.0.0/8 private', '10.9.8.7', /private/],
    ['100.64.0.0/10 shared address space', '100.127.0.1', /shared/],
    ['127.0.0.0/8 loopback', '127.0.0.2', /loopback/],
    ['169.254.0.0/16 link local', '169.254.169.254', /link-local/],
    ['172.16.0.0/12 private', '172.31.255.254', /private/],
    ['192.0.0.0/24 IETF protocol assignments', '192.0.0.1', /reserved/],
    ['192.0.0.170/32 NAT64 discovery', '192.0.0.170', /reserved/],
    ['192.0.2.0/24 TEST-NET-1', '192.0.2.1', /reserved or documentation/],
    ['192.31.196.0/24 AS112-v4', '192.31.196.1', /AS112/],
    ['192.52.193.0/24 AMT', '192.52.193.1', /AMT/],
    ['192.88.99.0/24 6to4 relay anycast', '192.88.99.1', /reserved/],
    ['192.168.0.0/16 private', '192.168.1.1', /private/],
    ['192.175.48.0/24 direct delegation AS112', '192.175.48.1', /AS112/],
    ['198.18.0.0/15 benchmarking', '198.19.255.1', /reserved/],
    ['198.51.100.0/24 TEST-NET-2', '198.51.100.1', /documentation/],
    ['203.0.113.0/24 TEST-NET-3', '203.0.113.1', /documentation/],
    ['224.0.0.0/4 multicast', '239.255.255.250', /multicast/],
    ['240.0.0.0/4 reserved', '240.0.0.1', /reserved/],
    ['255.255.255.255/32 limited broadcast', '255.255.255.255', /broadcast/],
    ['::1/128 loopback', '::1', /loopback/],
    ['::/128 unspecified', '::', /unspecified/],
    ['::ffff:0:0/96 IPv4-mapped, judged as its IPv4', '::ffff:10.0.0.1', /private/],
    ['::/96 IPv4-compatible (RFC 4291, deprecated)', '::8.8.8.8', /IPv4-compatible .*carrying 8\.8\.8\.8/],
    ['::ffff:0:0:0/96 IPv4-translated', '::ffff:0:808:808', /translated/],
    ['64:ff9b::/96 NAT64', '64:ff9b::7f00:1', /NAT64 .*carrying 127\.0\.0\.1 \(the host’s loopback\)/],
    ['64:ff9b:1::/48 local-use NAT64', '64:ff9b:1::a00:1', /NAT64 .*carrying 10\.0\.0\.1 \(a private address\)/],
    ['100::/64 discard-only', '100::1', /discard/],
    ['100:0:0:1::/64 dummy prefix (RFC 9780)', '100:0:0:1::1', /dummy/],
    ['2001::/32 Teredo', '2001:0:4136:e378:8000:63bf:f5ff:fffe', /Teredo .*carrying 10\.0\.0\.1/],
    ['2001::/23 IETF protocol assignments', '2001:1::1', /reserved/],
    ['2001:2::/48 benchmarking', '2001:2::1', /benchmarking/],
    ['2001:3::/32 AMT', '2001:3::1', /AMT/],
    ['2001:4:112::/48 AS112-v6', '2001:4:112::1', /AS112/],
    ['2001:10::/28 ORCHID (deprecated)', '2001:10::1', /ORCHID/],
    ['2001:20::/28 ORCHIDv2', '2001:20::1', /ORCHIDv2/],
    ['2001:30::/28 drone remote ID', '2001:30::1', /drone/],
    ['2001:db8::/32 documentation', '2001:db8::1', /reserved or documentation/],
    ['2002::/16 6to4', '2002:c0a8:101::1', /6to4 .*carrying 192\.168\.1\.1 \(a private address\)/],
    ['2620:4f:8000::/48 direct delegation AS112', '2620:4f:8000::1', /AS112/],
    ['3fff::/20 documentation', '3fff::1', /reserved/],
    ['5f00::/16 segment routing', '5f00::1', /segment routing/],
    ['fc00::/7 unique local', 'fd12:3456::1', /unique local/],
    ['fe80::/10 link local (with a zone)', 'fe80::1%eth0', /link-local/],
    ['fec0::/10 site-local (deprecated)', 'fec0::1', /site-local/],
    ['ff00::/8 multicast', 'ff02::1', /multicast/],
    ['outside 2000::/3 (reserved by the IETF)', '4000::1', /outside IPv6 global unicast/],
  ];
  it.each(SPECIAL)('refuses %s (%s)', (_range, address, why) => {
    expect(deniedAddress(address)).toMatch(why);
  });

  it('passes global unicast, a mapped public IPv4 address among them', () => {
    for (const address of ['1.1.1.1', '::ffff:8.8.8.8', '2a00:1450:4001:80b::200e', '2001:4860:4860::8888'])
      expect(deniedAddress(address), address).toBeNull();
  });
});

/** A server on the host's loopback that answers every connection with "hello" and counts them. */
async function echo(): Promise<{ port: number; connections: () => number }> {
  let count = 0;
  const server = createServer((socket) => {
    count++;
    socket.end('hello');
  });
  closing.push(server);
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return { port: (server.address() as { port: number }).port, connections: () => count };
}

/** A CONNECT through the proxy's socket: its status line, and what the tunnel then carried. */
function tunnel(socketPath: string, target: string): Promise<{ status: number; data: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(socketPath);
    let text = '';
    socket.on('connect', () => socket.write(`CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n\r\n`));
    socket.on('data', (chunk) => (text += chunk.toString()));
    socket.on('end', () => {
      const status = Number(/^HTTP\/1\.1 (\d+)/.exec(text)?.[1]);
      resolve({ status, data: text.split('\r\n\r\n').slice(1).join('\r\n\r\n') });
    });
    socket.on('error', reject);
  });
}

function get(socketPath: string, path: string, headers: Record<string, string> = {}, method = 'GET') {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request({ socketPath, path, method, headers }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('the egress proxy', () => {
  async function proxy(policy: EgressPolicy, resolve?: (host: string) => Promise<{ address: string }[]>) {
    const decisions: EgressDecision[] = [];
    const socket = join(dir, 'egress.sock');
    closing.push(
      await startEgressProxy(socket, { policy, onDecision: (d) => decisions.push(d), ...(resolve ? { resolve } : {}) }),
    );
    return { socket, decisions };
  }

  it('tunnels to a host:port its policy names, and nowhere else', async () => {
    const target = await echo();
    const other = await echo();
    const { socket, decisions } = await proxy({
      open: false,
      hosts: [],
      loopback: [{ host: '127.0.0.1', port: target.port, why: 'the local model' }],
    });
    expect(await tunnel(socket, `127.0.0.1:${target.port}`)).toEqual({ status: 200, data: 'hello' });
    const refused = await tunnel(socket, `127.0.0.1:${other.port}`);
    expect(refused.status).toBe(403);
    expect(refused.data).toMatch(/not one of the hosts this agent may reach/);
    expect(other.connections()).toBe(0);
    expect(decisions.map((d) => [d.port, d.allowed])).toEqual([
      [target.port, true],
      [other.port, false],
    ]);
  });

  it('refuses an allowed name that resolves to the host’s loopback or a private range (DNS rebinding)', async () => {
    const target = await echo();
    const { socket } = await proxy(
      { open: true, hosts: [{ host: 'api.example.com', port: '*', why: 'test' }], loopback: [] },
      async () => [{ address: '127.0.0.1' }, { address: '10.0.0.7' }],
    );
    const rebound = await tunnel(socket, `api.example.com:${target.port}`);
    expect(rebound.status).toBe(403);
    expect(rebound.data).toMatch(/resolves only to addresses the agent may not reach/);
    // The list turned off still never opens the host's own ranges.
    expect((await tunnel(socket, `127.0.0.1:${target.port}`)).status).toBe(403);
    expect(target.connections()).toBe(0);
  });

  it('forwards a plain request in absolute form, refuses one that names no host, and every upgrade', async () => {
    const web = createHttpServer((req, res) => res.end(`you asked ${req.method} ${req.url}`));
    closing.push(web);
    await new Promise<void>((done) => web.listen(0, '127.0.0.1', done));
    const port = (web.address() as { port: number }).port;
    const { socket } = await proxy({ open: false, hosts: [], loopback: [{ host: '127.0.0.1', port, why: 'test' }] });
    expect(await get(socket, `http://127.0.0.1:${port}/v1/models?x=1`)).toEqual({
      status: 200,
      body: 'you asked GET /v1/models?x=1',
    });
    const origin = await get(socket, '/session');
    expect(origin.status).toBe(400);
    expect((await get(socket, `http://127.0.0.1:${port + 1}/`)).status).toBe(403);
    const upgrade = await get(socket, `http://127.0.0.1:${port}/`, { Connection: 'Upgrade', Upgrade: 'websocket' });
    expect(upgrade.status).toBe(403);
  });
});

describe('the report gateway', () => {
  it('passes GET and HEAD of its own workspace’s report to the server, and nothing else', async () => {
    const seen: string[] = [];
    const server = createHttpServer((req, res) => {
      seen.push(`${req.method} ${req.url} ${req.headers.authorization ?? ''}`);
      res.end('{"ok":true}');
    });
    closing.push(server);
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    const origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    const socket = join(dir, 'report.sock');
    closing.push(await startReportGateway(socket, origin, 'w/1'));
    const own = reportPath('w/1');
    expect(own).toBe('/api/workspace/w%2F1/debug/context');
    expect(await get(socket, `${own}?items=5`, { Authorization: 'Bearer grant' })).toEqual({
      status: 200,
      body: '{"ok":true}',
    });
    expect((await get(socket, own, {}, 'HEAD')).status).toBe(200);
    for (const [method, path] of [
      ['POST', own],
      ['GET', `${own}/reader`],
      ['GET', '/api/workspace/other/debug/context'],
      ['GET', '/api/workspace/w%2F1/messages'],
      ['GET', '/?token=x'],
      ['GET', '/healthz'],
    ] as const) {
      const answer = await get(socket, path, {}, method);
      expect(answer.status, `${method} ${path}`).toBe(403);
      expect(answer.body).toMatch(/not_the_report/);
    }
    expect(seen).toEqual([`GET ${own}?items=5 Bearer grant`, `HEAD ${own} `]);
  });
});

describe('the relay', () => {
  it('joins a loopback port to a socket outside, and a socket to a loopback port inside', async () => {
    const outside = createServer((socket) => socket.end('from outside'));
    closing.push(outside);
    const socket = join(dir, 'out.sock');
    await new Promise<void>((done) => outside.listen(socket, done));
    const inside = await echo();
    const free = await echo();
    const port = free.port;
    await new Promise((done) => closing.pop()!.close(done));
    const inbound = join(dir, 'in.sock');
    const relays = await openRelays({
      out: [{ host: '127.0.0.1', port, socket }],
      in: [{ socket: inbound, port: inside.port }],
    });
    closing.push(...relays);
    const read = (where: { port: number; host: string } | string) =>
      new Promise<string>((resolve, reject) => {
        const client = typeof where === 'string' ? connect(where) : connect(where.port, where.host);
        let text = '';
        client.on('data', (chunk) => (text += chunk.toString()));
        client.on('end', () => resolve(text));
        client.on('error', reject);
      });
    expect(await read({ host: '127.0.0.1', port })).toBe('from outside');
    expect(await read(inbound)).toBe('hello');
  });
});
