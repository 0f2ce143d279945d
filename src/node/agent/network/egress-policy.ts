/**
 * Where a workspace's agent may connect to, decided before it starts: the model providers its
 * configuration names — by host name and port — and nothing else, unless the operator adds hosts
 * (INVESTIBOOK_AGENT_EGRESS_HOSTS) or turns the list off (`*`).
 *
 * The hosts come from configuration the agent cannot write: the operator's OpenCode configuration
 * (its global folder, `OPENCODE_CONFIG`) and the provider credentials OpenCode would use (its
 * `auth.json`, the providers' API-key variables). A workspace's own opencode.json is written by
 * its members — and by the agent, when edits are allowed — so the hosts only it names are allowed
 * only where the operator lets a workspace widen the defaults (INVESTIBOOK_AGENT_WORKSPACE_PERMISSIONS).
 *
 * A provider whose configuration gives a `baseURL` is allowed at that URL's host and port; one
 * without is allowed at its public API's hosts (the table below). A base URL on the host's own
 * loopback (a local model server) is a loopback target: the agent reaches exactly that port, and
 * no other port of the host.
 */
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { parse, type ParseError } from 'jsonc-parser';

/** A host the agent may reach through its proxy: a name (`*.example.com` covers subdomains) or an IP literal. */
export interface AllowedHost {
  host: string;
  /** `*`: any port (operator entries without one). */
  port: number | '*';
  why: string;
}

/** A port on the host's own loopback that the agent reaches as if it were its own (a local model). */
export interface LoopbackTarget {
  host: '127.0.0.1' | '::1' | 'localhost';
  port: number;
  why: string;
}

export interface EgressPolicy {
  /** The allowlist is off (INVESTIBOOK_AGENT_EGRESS_HOSTS=*): any public host, still never the host's own or private ranges. */
  open: boolean;
  hosts: AllowedHost[];
  loopback: LoopbackTarget[];
}

/**
 * The public API hosts of OpenCode's providers that need no `baseURL` (models.dev's provider
 * ids). A provider not listed here needs a `baseURL` in its configuration, or an operator entry.
 */
export const PROVIDER_HOSTS: Readonly<Record<string, readonly string[]>> = {
  anthropic: ['api.anthropic.com'],
  openai: ['api.openai.com'],
  google: ['generativelanguage.googleapis.com'],
  'google-vertex': ['*.googleapis.com'],
  'google-vertex-anthropic': ['*.googleapis.com'],
  'amazon-bedrock': ['*.amazonaws.com'],
  azure: ['*.openai.azure.com', '*.cognitiveservices.azure.com'],
  openrouter: ['openrouter.ai'],
  opencode: ['opencode.ai'],
  'github-copilot': ['api.githubcopilot.com', '*.githubcopilot.com', 'api.github.com'],
  groq: ['api.groq.com'],
  mistral: ['api.mistral.ai'],
  deepseek: ['api.deepseek.com'],
  xai: ['api.x.ai'],
  togetherai: ['api.together.xyz'],
  'fireworks-ai': ['api.fireworks.ai'],
  cerebras: ['api.cerebras.ai'],
  deepinfra: ['api.deepinfra.com'],
  moonshotai: ['api.moonshot.ai'],
  zai: ['api.z.ai'],
  zhipuai: ['open.bigmodel.cn'],
  'ollama-cloud': ['ollama.com'],
};

/** The API-key variables by which OpenCode finds a provider without any configuration. */
const PROVIDER_KEYS: Readonly<Record<string, string>> = {
  ANTHROPIC_API_KEY: 'anthropic',
  OPENAI_API_KEY: 'openai',
  GOOGLE_GENERATIVE_AI_API_KEY: 'google',
  GEMINI_API_KEY: 'google',
  OPENROUTER_API_KEY: 'openrouter',
  GROQ_API_KEY: 'groq',
  MISTRAL_API_KEY: 'mistral',
  DEEPSEEK_API_KEY: 'deepseek',
  XAI_API_KEY: 'xai',
  TOGETHER_AI_API_KEY: 'togetherai',
  FIREWORKS_API_KEY: 'fireworks-ai',
  CEREBRAS_API_KEY: 'cerebras',
  DEEPINFRA_API_KEY: 'deepinfra',
  MOONSHOT_API_KEY: 'moonshotai',
  OPENCODE_API_KEY: 'opencode',
};

export interface PolicyInput {
  /** The operator's OpenCode configuration files (global folder, OPENCODE_CONFIG), as paths. */
  operatorFiles: readonly string[];
  /** The workspace's own configuration files (the runtime's, in the order they apply), as paths. */
  workspaceFiles: readonly string[];
  /** Whether the workspace's own configuration may widen what the agent reaches. */
  workspaceWidens: boolean;
  /** The agent's environment (API-key variables). */
  env: NodeJS.ProcessEnv;
  /** OpenCode's credentials file, if any: the providers it holds keys for. */
  authFile: string | null;
  /** INVESTIBOOK_AGENT_EGRESS_HOSTS, split. */
  extra: readonly string[];
}

interface ConfigFacts {
  /** Providers named (model, small_model, provider entries, enabled_providers). */
  providers: Set<string>;
  enabled: Set<string> | null;
  disabled: Set<string>;
  /** `provider.<id>.options.baseURL`. */
  baseUrls: Map<string, string>;
}

/** The policy, and what a person should know about it (a workspace host it leaves out, a bad entry). */
export function egressPolicy(input: PolicyInput): { policy: EgressPolicy; warnings: string[] } {
  const warnings: string[] = [];
  const operator = facts(input.operatorFiles, warnings);
  const workspace = facts(input.workspaceFiles, warnings);
  for (const provider of authProviders(input.authFile)) operator.providers.add(provider);
  for (const [key, provider] of Object.entries(PROVIDER_KEYS)) if (input.env[key]) operator.providers.add(provider);

  const policy: EgressPolicy = { open: false, hosts: [], loopback: [] };
  addProviders(policy, operator, 'the operator’s OpenCode configuration');
  policy.loopback = policy.loopback.filter((target) => {
    if (target.port >= 1024) return true;
    // The relay inside holds no capability: it cannot listen on a privileged port.
    warnings.push(
      `${target.why} is on port ${target.port} of the host's loopback: a port under 1024 cannot be reached from the agent's network (serve the model on a higher port)`,
    );
    return false;
  });
  const before = new Set(hostKeys(policy));
  const widened: EgressPolicy = { open: false, hosts: [], loopback: [] };
  addProviders(widened, mergeFacts(operator, workspace), 'the workspace’s opencode.json');
  for (const entry of [...widened.hosts, ...widened.loopback]) {
    const key = `${entry.host}:${entry.port}`;
    if (before.has(key)) continue;
    if (input.workspaceWidens) add(policy, entry);
    else
      warnings.push(
        `the workspace's opencode.json names ${key}, which its agent's network does not reach (the operator may add it with INVESTIBOOK_AGENT_EGRESS_HOSTS, or let workspaces widen with INVESTIBOOK_AGENT_WORKSPACE_PERMISSIONS=widen)`,
      );
  }
  addOperatorHosts(policy, input.extra, warnings);
  return { policy, warnings };
}

function hostKeys(policy: EgressPolicy): string[] {
  return [...policy.hosts, ...policy.loopback].map((e) => `${e.host}:${e.port}`);
}

/** The operator's own hosts (INVESTIBOOK_AGENT_EGRESS_HOSTS) added to a policy, whatever the runtime. */
export function addOperatorHosts(policy: EgressPolicy, extra: readonly string[], warnings: string[]): void {
  for (const raw of extra) {
    if (raw === '*') {
      policy.open = true;
      continue;
    }
    const entry = parseHostEntry(raw);
    if (!entry) warnings.push(`INVESTIBOOK_AGENT_EGRESS_HOSTS: "${raw}" is not a host name or host:port; left out`);
    // The host's own loopback is reached port by port, never whole.
    else if (isLoopbackName(entry.host) && entry.port === '*')
      warnings.push(`INVESTIBOOK_AGENT_EGRESS_HOSTS: "${raw}" is the host's own loopback: name its port; left out`);
    else add(policy, { ...entry, why: 'INVESTIBOOK_AGENT_EGRESS_HOSTS' });
  }
}

function add(policy: EgressPolicy, entry: AllowedHost | LoopbackTarget): void {
  if (hostKeys(policy).includes(`${entry.host}:${entry.port}`)) return;
  if (entry.port !== '*' && isLoopbackName(entry.host)) policy.loopback.push(entry as LoopbackTarget);
  else policy.hosts.push(entry);
}

function addProviders(policy: EgressPolicy, config: ConfigFacts, where: string): void {
  for (const provider of [...config.providers].sort()) {
    if (config.disabled.has(provider)) continue;
    if (config.enabled && !config.enabled.has(provider)) continue;
    const base = config.baseUrls.get(provider);
    if (base) {
      const target = urlTarget(base);
      if (target) add(policy, { ...target, why: `provider ${provider} (${where})` });
      continue;
    }
    for (const host of PROVIDER_HOSTS[provider] ?? []) add(policy, { host, port: 443, why: `provider ${provider}` });
  }
}

/** A URL's host and port (the scheme's default), lower-cased, brackets removed. */
export function urlTarget(url: string): { host: string; port: number } | null {
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return null;
    const host = parsed.hostname.replace(/^\[|\]$/g, '').toLowerCase();
    const port = parsed.port ? Number(parsed.port) : parsed.protocol === 'https:' ? 443 : 80;
    return { host, port };
  } catch {
    return null;
  }
}

/** `host`, `host:port`, `*.domain`, `[v6]:port`, `v6` — or null. */
export function parseHostEntry(raw: string): { host: string; port: number | '*' } | null {
  const text = raw.trim().toLowerCase();
  const bracketed = /^\[([0-9a-f:.]+)\](?::(\d+))?$/.exec(text);
  if (bracketed) return port(bracketed[1]!, bracketed[2]);
  if (isIP(text) === 6) return { host: text, port: '*' };
  const named = /^((?:\*\.)?[a-z0-9](?:[a-z0-9.-]*[a-z0-9])?)(?::(\d+))?$/.exec(text);
  return named ? port(named[1]!, named[2]) : null;
}

function port(host: string, digits: string | undefined): { host: string; port: number | '*' } | null {
  if (digits === undefined) return { host, port: '*' };
  const value = Number(digits);
  return value >= 1 && value <= 65535 ? { host, port: value } : null;
}

export const isLoopbackName = (host: string): boolean =>
  host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);

function facts(files: readonly string[], warnings: string[]): ConfigFacts {
  const out: ConfigFacts = { providers: new Set(), enabled: null, disabled: new Set(), baseUrls: new Map() };
  for (const file of files) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    const errors: ParseError[] = [];
    const config = parse(text, errors, { allowTrailingComma: true }) as unknown;
    if (errors.length || typeof config !== 'object' || config === null) {
      warnings.push(`${file} is not valid JSON: no provider host is taken from it`);
      continue;
    }
    readConfig(config as Record<string, unknown>, out);
  }
  return out;
}

function readConfig(config: Record<string, unknown>, out: ConfigFacts): void {
  for (const key of ['model', 'small_model']) {
    const model = config[key];
    if (typeof model === 'string' && model.includes('/')) out.providers.add(model.split('/')[0]!);
  }
  const strings = (value: unknown) => (Array.isArray(value) ? value.filter((v) => typeof v === 'string') : []);
  if (Array.isArray(config.enabled_providers)) out.enabled = new Set(strings(config.enabled_providers));
  for (const id of strings(config.disabled_providers)) out.disabled.add(id);
  const providers = config.provider;
  if (typeof providers !== 'object' || providers === null) return;
  for (const [id, entry] of Object.entries(providers as Record<string, unknown>)) {
    out.providers.add(id);
    const options = (entry as { options?: { baseURL?: unknown; baseUrl?: unknown } } | null)?.options;
    const base = options?.baseURL ?? options?.baseUrl;
    if (typeof base === 'string') out.baseUrls.set(id, base);
  }
}

function mergeFacts(a: ConfigFacts, b: ConfigFacts): ConfigFacts {
  return {
    providers: new Set([...a.providers, ...b.providers]),
    enabled: b.enabled ?? a.enabled,
    disabled: new Set([...a.disabled, ...b.disabled]),
    baseUrls: new Map([...a.baseUrls, ...b.baseUrls]),
  };
}

function authProviders(file: string | null): string[] {
  if (!file) return [];
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as unknown;
    return typeof parsed === 'object' && parsed !== null ? Object.keys(parsed) : [];
  } catch {
    return [];
  }
}
