/**
 * npm run opencode-tools: the definitions the pinned OpenCode sends for each of its built-in
 * agents and each model it knows — asked of the real OpenCode's own server (`opencode serve`,
 * an empty folder, no configuration, no MCP server, no skill), as the bridge asks it for a live
 * session (runtime-definitions.ts) — written to src/node/core/catalog/opencode-tools.json with
 * the version and the binary's SHA-256. A session imported from elsewhere has no definitions
 * recorded where it ran; the report splits its runtime item by these, "as measured with OpenCode
 * VERSION" (core/opencode/pinned-definitions.ts). Regenerated when the pinned OpenCode changes.
 *
 * The models asked: every model of the catalog (opencode-models.json, the same binary's), and
 * those the kept public exports name (test/fixtures/public). The tool list goes by provider and
 * model (apply_patch for some models, websearch for some providers); the agents' permission
 * rules remove tools; the agent's own prompt replaces the provider prompt. Kept compactly: each
 * distinct tool once, each distinct list of tools once, a model only where its list is not the
 * one most models of the catalog get.
 */
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { installedOpencode, OPENCODE_VERSION, opencodeEnv } from '../src/node/agent/opencode/install';
import { disabledTools } from '../src/node/agent/opencode/runtime-definitions';
import { PROJECT_ROOT } from '../src/node/project';

const OUT = join(PROJECT_ROOT, 'src', 'node', 'core', 'catalog', 'opencode-tools.json');
/** The catalog is read as the data file it is (the core's modules are imported only through its entry). */
const catalog = JSON.parse(
  readFileSync(join(PROJECT_ROOT, 'src', 'node', 'core', 'catalog', 'opencode-models.json'), 'utf8'),
) as { opencode: string; models: unknown };
const PUBLIC = join(PROJECT_ROOT, 'test', 'fixtures', 'public');
/** The agents that run a conversation's calls (the others write titles and summaries). */
const AGENTS = ['build', 'plan', 'general', 'explore'];

interface Served {
  id: string;
  description?: string;
  parameters?: unknown;
}
interface Agent {
  name: string;
  prompt?: unknown;
  permission?: { permission: string; pattern: string; action: string }[];
}

/** `opencode serve` on a free loopback port with a password of its own; `get` asks it, `stop` ends it. */
async function serve(bin: string, cwd: string, env: NodeJS.ProcessEnv) {
  const password = randomBytes(18).toString('base64url');
  const child = spawn(bin, ['serve', '--hostname', '127.0.0.1', '--port', '0'], {
    cwd,
    env: { ...env, OPENCODE_SERVER_USERNAME: 'opencode', OPENCODE_SERVER_PASSWORD: password },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (match) resolve(match[1]!);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => reject(new Error(`opencode serve exited with ${code}: ${output.trim()}`)));
  });
  const authorization = `Basic ${Buffer.from(`opencode:${password}`).toString('base64')}`;
  const get = async <T>(path: string): Promise<T> => {
    const response = await fetch(`${url}${path}`, { headers: { Authorization: authorization } });
    if (!response.ok) throw new Error(`GET ${path} answered ${response.status}`);
    return (await response.json()) as T;
  };
  const stop = () =>
    new Promise<void>((done) => {
      child.once('exit', () => done());
      child.kill('SIGTERM');
    });
  return { get, stop };
}

/** Every provider/model of the catalog, and those the kept public exports name. */
function modelsToAsk(): string[] {
  const models = new Set<string>();
  for (const [provider, list] of Object.entries(catalog.models as Record<string, Record<string, unknown>>))
    for (const id of Object.keys(list)) models.add(`${provider}/${id}`);
  for (const file of readdirSync(PUBLIC).filter((f) => f.endsWith('.json') && f !== 'sources.json')) {
    const exported = JSON.parse(readFileSync(join(PUBLIC, file), 'utf8')) as {
      messages?: { info: { role?: string; providerID?: string; modelID?: string } }[];
    };
    for (const { info } of exported.messages ?? [])
      if (info.role === 'assistant' && info.providerID && info.modelID)
        models.add(`${info.providerID}/${info.modelID}`);
  }
  return [...models].sort();
}

async function main(): Promise<void> {
  const bin = installedOpencode();
  if (!bin) throw new Error('the pinned OpenCode is not installed: run a live-agent test once to install it');
  if (catalog.opencode !== OPENCODE_VERSION)
    throw new Error(`the model catalog is of OpenCode ${catalog.opencode}: run npm run model-catalog first`);
  const home = mkdtempSync(join(tmpdir(), 'investibook-opencode-tools-'));
  const server = await serve(bin, mkdtempSync(join(home, 'ws-')), opencodeEnv(home));
  try {
    const agents = await server.get<Agent[]>('/agent');
    const tools: Record<string, { description: string; parameters: string }> = {};
    const sets: string[][] = [];
    const setOf = new Map<string, number>();
    const byModel = new Map<string, number>();
    for (const model of modelsToAsk()) {
      const [provider, ...rest] = model.split('/');
      const query = `provider=${encodeURIComponent(provider!)}&model=${encodeURIComponent(rest.join('/'))}`;
      const served = await server.get<Served[]>(`/experimental/tool?${query}`);
      const keys = served
        .filter((t) => t.id !== 'invalid')
        .map((t) => toolKey(tools, t.id, t.description ?? '', JSON.stringify(t.parameters ?? {})));
      const setKey = keys.join(' ');
      if (!setOf.has(setKey)) setOf.set(setKey, sets.push(keys) - 1);
      byModel.set(model, setOf.get(setKey)!);
    }
    // The list most models get is the default; only the others are named.
    const counts = new Map<number, number>();
    for (const set of byModel.values()) counts.set(set, (counts.get(set) ?? 0) + 1);
    const defaultSet = [...counts].sort((a, b) => b[1] - a[1])[0]![0];
    const listed = new Set(
      Object.entries(catalog.models as Record<string, Record<string, unknown>>).flatMap(([p, list]) =>
        Object.keys(list).map((id) => `${p}/${id}`),
      ),
    );
    const models = Object.fromEntries([...byModel].filter(([model, set]) => set !== defaultSet || !listed.has(model)));
    const union = [...new Set(sets.flat().map((key) => key.split('@')[0]!))].sort();
    const out = {
      about:
        'The pinned OpenCode’s own definitions per built-in agent and model, asked of its server by npm run opencode-tools (scripts/opencode-tools.ts). Do not edit: regenerate.',
      opencode: OPENCODE_VERSION,
      binarySha256: createHash('sha256').update(readFileSync(bin)).digest('hex'),
      agents: Object.fromEntries(
        AGENTS.map((name) => {
          const agent = agents.find((a) => a.name === name);
          if (!agent) throw new Error(`OpenCode ${OPENCODE_VERSION} has no ${name} agent`);
          const prompt = typeof agent.prompt === 'string' && agent.prompt !== '' ? agent.prompt.length : null;
          return [name, { promptChars: prompt, disabled: disabledTools(union, agent.permission ?? []) }];
        }),
      ),
      tools,
      sets,
      defaultSet,
      models,
    };
    writeFileSync(OUT, `${JSON.stringify(out, null, 1)}\n`);
    console.log(`${OUT}: ${byModel.size} models, ${sets.length} tool lists, ${Object.keys(tools).length} tools`);
  } finally {
    await server.stop();
    rmSync(home, { recursive: true, force: true });
  }
}

/** A tool's key: its id, or `id@n` when another model is sent another text under the same id. */
function toolKey(
  tools: Record<string, { description: string; parameters: string }>,
  id: string,
  description: string,
  parameters: string,
): string {
  for (let n = 0; ; n++) {
    const key = n === 0 ? id : `${id}@${n}`;
    const known = tools[key];
    if (!known) {
      tools[key] = { description, parameters };
      return key;
    }
    if (known.description === description && known.parameters === parameters) return key;
  }
}

main().catch((error: unknown) => {
  console.error(`opencode-tools: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
