/**
 * The live agent reaches only what it is given — tried as an attacker on the same machine would,
 * with the real pinned OpenCode in its sandbox, two workspaces' agents running:
 *
 * - no open listener: every socket any process of an agent's tree listens on (OpenCode's own
 *   server included, and the definitions recorder's `opencode serve`) refuses OpenCode's API
 *   without that process's password — from the agent's own network, as root and as another user;
 *   from the host's network there is nothing of it at all;
 * - a network of its own: the host's loopback services, its own addresses, private ranges and the
 *   other workspace's agent are out of reach, directly and through its proxy; its model provider's
 *   hosts are not; the turn still streams from the scripted model;
 * - a host name of its own: setting one inside changes nothing outside.
 */
import { spawn, spawnSync } from 'node:child_process';
import { readlinkSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { hostname, networkInterfaces } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launch } from '../../src/node/agent/confinement';
import { installedOpencode, opencodeEnv, pinnedAgentSettings } from '../../src/node/agent/opencode/install';
import type { AgentEvent } from '../../src/shared/agent';
import { OTHER_WS, startAgentHarness, type AgentHarness } from '../support/agent-harness';
import { commandLine, environ, listeners, NOBODY, probe, processTree, type ProbeTry } from '../support/process-tree';

const WS = 'demo';
const of = <T extends AgentEvent['type']>(events: AgentEvent[], type: T) =>
  events.filter((e): e is Extract<AgentEvent, { type: T }> => e.type === type);

/** OpenCode's API as the attack used it: sessions, configuration, a file, a shell command. */
const API: { method: string; path: string; body?: string }[] = [
  { method: 'GET', path: '/session' },
  { method: 'GET', path: '/config' },
  { method: 'GET', path: '/file/content?path=evidence/customer-report-zh.md' },
  { method: 'POST', path: '/session/ses_x/shell', body: JSON.stringify({ agent: 'build', command: 'id > pwned' }) },
];
const apiTries = (host: string, port: number, headers: Record<string, string> = {}): ProbeTry[] =>
  API.map((call) => ({
    kind: 'http',
    host,
    port,
    method: call.method,
    path: call.path,
    headers: { 'Content-Type': 'application/json', ...headers },
    ...(call.body ? { body: call.body } : {}),
  }));

const basic = (password: string) => ({
  Authorization: `Basic ${Buffer.from(`opencode:${password}`).toString('base64')}`,
});

/** The OpenCode process of an agent's tree (the pinned binary running `acp` or `serve`). */
function opencodeOf(tree: number[], verb: 'acp' | 'serve'): number {
  const pid = tree.find((p) => {
    const words = commandLine(p);
    return words[0]?.endsWith('/opencode') === true && words.includes(verb);
  });
  if (!pid) throw new Error(`no opencode ${verb} in ${tree.map((p) => commandLine(p).join(' ')).join(' | ')}`);
  return pid;
}

/** Every listener of a tree answers OpenCode's API without credentials with a refusal, never its data. */
async function expectRefusedEverywhere(tree: number[]): Promise<{ port: number; pid: number }[]> {
  const found = listeners(tree);
  expect(found.length).toBeGreaterThan(0);
  const tcp = found.filter((l) => l.kind === 'tcp');
  for (const listener of tcp) {
    const host = listener.address === '::1' ? '::1' : '127.0.0.1';
    for (const uid of [0, NOBODY]) {
      const answers = await probe(listener.pid, apiTries(host, listener.port!), uid);
      for (const [index, answer] of answers.entries()) {
        const what = `${API[index]!.method} ${API[index]!.path} on ${host}:${listener.port} (${commandLine(listener.pid).slice(0, 2).join(' ')}) as uid ${uid}`;
        expect(answer.status ?? 0, `${what}: ${JSON.stringify(answer)}`).not.toBe(200);
        if (answer.status) expect(answer.status, what).toBeGreaterThanOrEqual(400);
      }
    }
  }
  return tcp.map((l) => ({ port: l.port!, pid: l.pid }));
}

let h: AgentHarness;
let service: Server;
let serviceConnections = 0;
let servicePort = 0;

beforeAll(async () => {
  // A service on the host's loopback that no agent was given (a local database, another server).
  service = createServer((socket) => {
    serviceConnections++;
    socket.end('secret\n');
  });
  await new Promise<void>((done) => service.listen(0, '127.0.0.1', done));
  servicePort = (service.address() as { port: number }).port;
  h = await startAgentHarness({
    second: true,
    permissions: 'allow',
    // A real provider's host, allowed by name (no model is asked there: the scripted model answers).
    settings: { egressHosts: ['api.openai.com:443'] },
  });
  for (const client of [h, h.other]) {
    const { events } = await client.prompt('What do we know so far?');
    expect(of(events, 'text').length, JSON.stringify(events).slice(0, 400)).toBeGreaterThan(0);
    expect(of(events, 'done')[0]?.stopReason).toBe('end_turn');
  }
  await h.bridge.settled();
});
afterAll(async () => {
  await h?.close();
  await new Promise((done) => service?.close(done));
});

describe('no open listener', () => {
  it('every socket of an agent’s process tree refuses OpenCode’s API without its password, as root and as another user', async () => {
    for (const workspace of [WS, OTHER_WS]) {
      const tree = processTree(h.bridge.processId(workspace)!);
      const tcp = await expectRefusedEverywhere(tree);
      // OpenCode's own server is among them, and with its process's password it is OpenCode.
      const opencode = opencodeOf(tree, 'acp');
      const password = environ(opencode, 'OPENCODE_SERVER_PASSWORD')!;
      expect(password.length).toBeGreaterThanOrEqual(24);
      const own = tcp.find((l) => l.pid === opencode);
      expect(own, 'OpenCode’s own server').toBeDefined();
      const refused = await probe(opencode, apiTries('127.0.0.1', own!.port));
      expect(refused.map((a) => a.status)).toEqual([401, 401, 401, 401]);
      const [sessions] = await probe(opencode, apiTries('127.0.0.1', own!.port, basic(password)).slice(0, 1));
      expect(sessions!.status).toBe(200);
      // From the host's own network that server is not there at all.
      const outside = await probe(null, apiTries('127.0.0.1', own!.port), NOBODY);
      for (const answer of outside) expect(answer.status ?? 0).not.toBe(200);
    }
  });

  it('the definitions recorder’s `opencode serve` too: only its socket leads in, and it asks for the password', async () => {
    const bin = installedOpencode()!;
    const settings = pinnedAgentSettings(bin, opencodeEnv(join(h.dir, 'serve-home')), join(h.dir, 'serve-state'));
    const how = await launch(
      settings,
      { id: WS, root: h.root, others: [h.otherRoot] },
      { command: bin, args: ['serve', '--hostname', '127.0.0.1', '--port', '4096'] },
      { network: { inbound: 4096 } },
    );
    const child = spawn(how.command, how.args, { cwd: how.cwd, env: how.env, stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      // Until it says it listens, or exits (no time bound: the test's own timeout is the only one).
      await new Promise<void>((ready, fail) => {
        let output = '';
        const onData = (chunk: Buffer) => {
          output += chunk.toString();
          if (/listening on http:\/\/127\.0\.0\.1:4096/.test(output)) ready();
        };
        child.stdout.on('data', onData);
        child.stderr.on('data', onData);
        child.once('exit', (code) => fail(new Error(`serve exited with ${code} before listening: ${output}`)));
      });
      const tree = processTree(child.pid!);
      await expectRefusedEverywhere(tree);
      const sockets = listeners(tree).filter((l) => l.kind === 'unix');
      expect(sockets.map((l) => l.address)).toEqual([how.inboundSocket]);
      // Through its socket: 401 without the password, OpenCode with it.
      const status = (headers: Record<string, string>) =>
        spawnSync(
          'curl',
          [
            '-s',
            '-o',
            '/dev/null',
            '-w',
            '%{http_code}',
            '--unix-socket',
            how.inboundSocket!,
            ...Object.entries(headers).flatMap(([k, v]) => ['-H', `${k}: ${v}`]),
            'http://x/session',
          ],
          { encoding: 'utf8' },
        ).stdout;
      expect(status({})).toBe('401');
      expect(status(basic(how.secret.password))).toBe('200');
      // Another user cannot even open the folder its socket is in.
      const asNobody = spawnSync(
        'setpriv',
        [
          `--reuid=${NOBODY}`,
          `--regid=${NOBODY}`,
          '--clear-groups',
          'curl',
          '-s',
          '-o',
          '/dev/null',
          '-w',
          '%{http_code}',
          '--unix-socket',
          how.inboundSocket!,
          'http://x/session',
        ],
        { encoding: 'utf8' },
      );
      expect(asNobody.stdout).toBe('000');
    } finally {
      child.kill('SIGTERM');
      await new Promise((done) => child.once('exit', done));
      await how.network?.close();
    }
  });
});

describe('a network of its own', () => {
  const agentPid = (workspace: string) => {
    const tree = processTree(h.bridge.processId(workspace)!);
    return opencodeOf(tree, 'acp');
  };
  const proxyPort = (pid: number) => Number(new URL(environ(pid, 'HTTPS_PROXY')!).port);

  it('reaches no service on the host’s loopback, none of its addresses, no private range — directly or through its proxy', async () => {
    const pid = agentPid(WS);
    const proxy = proxyPort(pid);
    const hostAddress = Object.values(networkInterfaces())
      .flat()
      .find((a) => a && a.family === 'IPv4' && !a.internal)?.address;
    const tries: ProbeTry[] = [
      { kind: 'tcp', host: '127.0.0.1', port: servicePort },
      { kind: 'connect', proxyPort: proxy, target: `127.0.0.1:${servicePort}` },
      { kind: 'connect', proxyPort: proxy, target: `localhost:${servicePort}` },
      { kind: 'connect', proxyPort: proxy, target: '10.1.2.3:80' },
      { kind: 'connect', proxyPort: proxy, target: '169.254.169.254:80' },
      { kind: 'connect', proxyPort: proxy, target: 'example.com:443' },
      ...(hostAddress
        ? ([
            { kind: 'tcp', host: hostAddress, port: servicePort },
            { kind: 'connect', proxyPort: proxy, target: `${hostAddress}:${servicePort}` },
          ] as ProbeTry[])
        : []),
    ];
    const answers = await probe(pid, tries);
    expect(answers[0]!.connected).toBeUndefined();
    expect(answers[0]!.error).toBe('ECONNREFUSED');
    for (const answer of answers.slice(1, 6)) expect(answer.status, JSON.stringify(answer)).toBe(403);
    expect(answers[5]!.body).toMatch(/not one of the hosts this agent may reach/);
    if (hostAddress) {
      expect(answers[6]!.connected).toBeUndefined();
      expect(answers[7]!.status).toBe(403);
    }
    expect(serviceConnections).toBe(0);
    // Each refusal is in the server's log, for the operator.
    expect(h.logs.join('\n')).toContain(`refused 127.0.0.1:${servicePort}`);
  });

  it('reaches its model provider’s hosts by name: allowed by the proxy (this machine has no internet to go further)', async () => {
    const pid = agentPid(WS);
    const [allowed, otherPort] = await probe(pid, [
      { kind: 'connect', proxyPort: proxyPort(pid), target: 'api.openai.com:443' },
      { kind: 'connect', proxyPort: proxyPort(pid), target: 'api.openai.com:8443' },
    ]);
    // Past the allowlist: a tunnel where the internet is there, "could not be resolved/reached" here.
    expect(allowed!.status, JSON.stringify(allowed)).not.toBe(403);
    expect([200, 502]).toContain(allowed!.status);
    // By host name and port.
    expect(otherPort!.status).toBe(403);
  });

  it('does not reach the other workspace’s agent: its own loopback is its own', async () => {
    const mine = agentPid(WS);
    const theirs = agentPid(OTHER_WS);
    expect(readlinkSync(`/proc/${mine}/ns/net`)).not.toBe(readlinkSync(`/proc/${theirs}/ns/net`));
    const port = listeners(processTree(theirs)).find((l) => l.pid === theirs && l.kind === 'tcp')!.port!;
    const theirPassword = environ(theirs, 'OPENCODE_SERVER_PASSWORD')!;
    const myPassword = environ(mine, 'OPENCODE_SERVER_PASSWORD')!;
    expect(theirPassword).not.toBe(myPassword);
    // The same port in this agent's network is its own OpenCode: the other's password opens nothing.
    const [withTheirs] = await probe(mine, apiTries('127.0.0.1', port, basic(theirPassword)).slice(0, 1));
    expect(withTheirs!.status).toBe(401);
    const [tunnel] = await probe(mine, [{ kind: 'connect', proxyPort: proxyPort(mine), target: `127.0.0.1:${port}` }]);
    expect(tunnel!.status).toBe(403);
  });

  it('streams a turn from the scripted model through it, and the model saw both workspaces’ requests', () => {
    expect(h.requests.filter((r) => r.kind === 'step').length).toBeGreaterThanOrEqual(2);
  });
});

describe('a host name of its own', () => {
  it('cannot set one, and nothing it does changes the host’s', async () => {
    const bin = installedOpencode()!;
    const before = hostname();
    const how = await launch(
      pinnedAgentSettings(bin, opencodeEnv(join(h.dir, 'uts-home')), join(h.dir, 'uts-state')),
      { id: WS, root: h.root, others: [] },
      { command: '/bin/sh', args: ['-c', 'hostname; hostname evil.example 2>/dev/null; echo "rc=$?"; hostname'] },
    );
    const run = spawnSync(how.command, how.args, { cwd: how.cwd, env: how.env, encoding: 'utf8' });
    const [inside, rc, after] = run.stdout.trim().split('\n');
    expect(inside).toBe('investibook-agent');
    expect(rc).not.toBe('rc=0');
    expect(after).toBe('investibook-agent');
    expect(hostname()).toBe(before);
  });
});
