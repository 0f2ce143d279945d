/**
 * Records OpenCode's own definitions for sessions, where the agent runs: the pinned OpenCode's
 * own server (`opencode serve`, started as the agent is — the same confinement, environment and
 * storage — on loopback with a password of its own, and stopped again) answers which tools it
 * sends a provider and model (`GET /experimental/tool`), the agents' and the sessions'
 * permission rules (which remove tools), the MCP servers it is configured with and their status,
 * the folders and the model's API id for the environment block; each connected MCP server is
 * asked for its tools itself (mcp-tools.ts), since OpenCode's server does not list them. The
 * bridge calls this after a session's first turn (and for each subagent's session), the
 * recorder for every recording; the report reads what was stored and never asks a runtime.
 */
import { platform } from 'node:os';
import {
  DEFINITIONS_VERSION,
  definitionsKey,
  mcpToolName,
  type McpServerDefinitions,
  type OpenCodeDefinitions,
  type ToolDefinition,
} from '../../../shared/opencode/definitions';
import { listMcpTools, type McpConfig } from '../mcp-tools';
import { readAnswers, setupKey, writeAnswers, type RuntimeAnswers } from './definitions-cache';
import { startServer, type ServerOptions } from './opencode-server';

/** One agent and model a session used: what its definitions are recorded for. */
export interface RuntimeUse {
  agent: string;
  providerID: string;
  modelID: string;
}

export interface SessionUses {
  sessionId: string;
  uses: readonly RuntimeUse[];
}

export interface RecordedDefinitions {
  sessionId: string;
  /** `definitionsKey(agent, provider, model)`. */
  key: string;
  /** The session whose `task` call made this one, as OpenCode recorded it. */
  parentSessionId: string | null;
  definitions: OpenCodeDefinitions;
}

export interface DefinitionsOptions extends ServerOptions {
  /** Whether the agent's network reaches a URL: a remote MCP server it does not reach is not asked either. */
  reaches?: (url: string) => boolean;
  /** MCP servers the agent is given besides its configuration's (ACP `session/new`), by name. */
  extraMcp?: Readonly<Record<string, McpConfig>>;
  /** Where the answers about the set-up are kept for the next sessions (definitions-cache.ts); none: asked each time. */
  cache?: { file: string };
  /** Each session's own record as its export has it: with the cache, no server is asked for it. */
  sessions?: ReadonlyMap<string, SessionInfo>;
}

interface ServedAgent {
  name: string;
  prompt?: unknown;
  permission?: Rule[];
}
interface Rule {
  permission: string;
  pattern: string;
  action: string;
}

/** A session as OpenCode keeps it (its export's `info` is what its server answers for `/session/<id>`). */
export interface SessionInfo {
  parentID?: string;
  permission?: Rule[];
}

/**
 * The definitions of every use of every session, one server run for all of them — or none, when
 * the answers about the same set-up were kept (definitions-cache.ts) and each session's own record
 * (`sessions`: its parent and permission rules, from its export) is known.
 */
export async function recordDefinitions(
  sessions: readonly SessionUses[],
  options: DefinitionsOptions,
): Promise<RecordedDefinitions[]> {
  const wanted = sessions.filter((s) => s.uses.length > 0);
  if (wanted.length === 0) return [];
  const models = [...new Set(wanted.flatMap((s) => s.uses.map(modelKey)))];
  const key = options.cache ? await cacheKey(options) : null;
  const known = options.sessions;
  if (key && known && wanted.every((s) => known.has(s.sessionId))) {
    const kept = readAnswers(options.cache!.file, key, models);
    if (kept)
      return wanted.flatMap((s) =>
        definitionsOf(kept, { problems: [], unlisted: new Map() }, s, known.get(s.sessionId)!),
      );
  }
  let server: Awaited<ReturnType<typeof startServer>> | null = null;
  try {
    server = await startServer(options);
    const get = server.get;
    const problems: string[] = [];
    const unlisted = new Map<string, string>();
    const answers = await askRuntime(get, models, options, { problems, unlisted });
    if (key && problems.length === 0 && unlisted.size === 0 && keepable(answers))
      writeAnswers(options.cache!.file, key, answers);
    const out: RecordedDefinitions[] = [];
    for (const s of wanted) {
      const session = await get<SessionInfo>(`/session/${encodeURIComponent(s.sessionId)}`).catch(
        () => ({}) as SessionInfo,
      );
      out.push(...definitionsOf(answers, { problems, unlisted }, s, session));
    }
    return out;
  } catch (error) {
    const failed = error instanceof Error ? error.message : String(error);
    return notRecorded(wanted, `OpenCode's own server could not be asked: ${failed}`);
  } finally {
    await server?.stop();
  }
}

const modelKey = (use: RuntimeUse) => `${use.providerID}/${use.modelID}`;

/** The set-up's key, from how the agent's launch makes it (its folder, its environment; nothing is started). */
async function cacheKey(options: DefinitionsOptions): Promise<string | null> {
  const how = await options.launch(options.serve);
  await how.close?.();
  return setupKey(how, options.serve, options.extraMcp ?? {});
}

/** Answers worth keeping: every model's tools listed, every MCP server asked without a problem. */
function keepable(answers: RuntimeAnswers): boolean {
  return answers.mcp.every((m) => !m.problem && ['connected', 'disabled'].includes(m.status));
}

type Get = <T>(path: string) => Promise<T>;

/** What could not be asked: in general, and a model's tools (why none). */
interface Unanswered {
  problems: string[];
  unlisted: Map<string, string>;
}

/** What OpenCode's server says of the set-up, the same for every session; `unanswered` gathers what it could not. */
async function askRuntime(
  get: Get,
  models: readonly string[],
  options: DefinitionsOptions,
  { problems, unlisted }: Unanswered,
): Promise<RuntimeAnswers> {
  const health = await get<{ version?: string }>('/global/health').catch(() => ({ version: undefined }));
  const paths = await get<{ directory?: string; worktree?: string }>('/path');
  const project = await get<{ vcs?: string; worktree?: string }>('/project/current').catch(() => ({}) as never);
  const providers = await get<RuntimeAnswers['providers']>('/config/providers').catch(() => ({ providers: [] }));
  const agents = await get<ServedAgent[]>('/agent').catch((error: unknown) => {
    problems.push(`the agents' permission rules could not be read (${String(error)}): no tool is left out by them`);
    return [] as ServedAgent[];
  });
  const mcp = await mcpServers(get, options, problems);
  const tools: Record<string, ToolDefinition[]> = {};
  for (const model of models) {
    const listed = await toolsOf(get, model);
    if (typeof listed === 'string') unlisted.set(model, listed);
    else tools[model] = listed;
  }
  return { version: health.version, paths, project, providers, agents, mcp, tools };
}

/** A session's definitions for each of its uses, from the set-up's answers and its own record. */
function definitionsOf(
  answers: RuntimeAnswers,
  { problems, unlisted }: Unanswered,
  { sessionId, uses }: SessionUses,
  session: SessionInfo,
): RecordedDefinitions[] {
  const { paths, project, providers, agents, mcp } = answers;
  return uses.map((use) => {
    const tools = answers.tools[modelKey(use)];
    const agent = agents.find((a) => a.name === use.agent);
    const rules = [...(agent?.permission ?? []), ...(session.permission ?? [])];
    const listed = (tools ?? []).filter((t) => t.id !== 'invalid');
    const disabled = disabledTools(
      listed.map((t) => t.id),
      rules,
    );
    const apiId =
      providers.providers?.find((p) => p.id === use.providerID)?.models?.[use.modelID]?.api?.id ?? use.modelID;
    const definitions: OpenCodeDefinitions = {
      kind: 'opencode',
      version: DEFINITIONS_VERSION,
      opencode: answers.version ?? 'unknown',
      agent: use.agent,
      providerID: use.providerID,
      modelID: use.modelID,
      apiId,
      tools: listed.filter((t) => !disabled.includes(t.id)),
      disabled,
      // MCP tools a rule denies outright are not sent either.
      mcp: mcp.map((server) => ({
        ...server,
        tools: server.tools.filter((t) => disabledTools([mcpToolName(server.name, t.name)], rules).length === 0),
      })),
      environment:
        paths.directory && paths.worktree
          ? {
              directory: paths.directory,
              worktree: paths.worktree,
              git: project.vcs === 'git' || (project.vcs === undefined && paths.worktree !== '/'),
              platform: platform(),
              date: new Date().toDateString(),
            }
          : null,
      agentPrompt: typeof agent?.prompt === 'string' && agent.prompt !== '' ? { chars: agent.prompt.length } : null,
      problems: [...problems, ...(unlisted.has(modelKey(use)) ? [unlisted.get(modelKey(use))!] : [])],
    };
    return {
      sessionId,
      key: definitionsKey(use.agent, use.providerID, use.modelID),
      parentSessionId: session.parentID ?? null,
      definitions,
    };
  });
}

/** The tools OpenCode offers a provider's model (an error: why none). */
async function toolsOf(get: Get, model: string): Promise<ToolDefinition[] | string> {
  const [providerID, ...rest] = model.split('/');
  const query = `provider=${encodeURIComponent(providerID!)}&model=${encodeURIComponent(rest.join('/'))}`;
  return get<{ id: string; description?: string; parameters?: unknown }[]>(`/experimental/tool?${query}`)
    .then((list) =>
      list.map((t) => ({
        id: t.id,
        description: t.description ?? '',
        parameters: JSON.stringify(t.parameters ?? {}),
      })),
    )
    .catch((error: unknown) => `its tools could not be listed: ${String(error)}`);
}

/** Every MCP server of the configuration (and those given besides), with the tools of each connected one. */
async function mcpServers(get: Get, options: DefinitionsOptions, problems: string[]): Promise<McpServerDefinitions[]> {
  const config = await get<{ mcp?: Record<string, unknown> }>('/config').catch((error: unknown) => {
    problems.push(`the MCP servers could not be read from OpenCode's configuration (${String(error)})`);
    return {} as { mcp?: Record<string, unknown> };
  });
  const status = await get<Record<string, { status?: string }>>('/mcp').catch(
    () => ({}) as Record<string, { status?: string }>,
  );
  const configured: Record<string, unknown> = { ...config.mcp, ...options.extraMcp };
  const out: McpServerDefinitions[] = [];
  for (const [name, raw] of Object.entries(configured).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const state = status[name]?.status ?? (isEnabled(raw) ? 'unknown' : 'disabled');
    const server: McpServerDefinitions = { name, status: state, tools: [] };
    if (state === 'connected' || (state === 'unknown' && options.extraMcp?.[name])) {
      const mcpConfig = asMcpConfig(raw);
      if (!mcpConfig) server.problem = 'its configuration is neither a local command nor a remote URL';
      else {
        try {
          const listing = await listMcpTools(mcpConfig, options.launch, options.reaches);
          server.tools = listing.tools;
          // One given through ACP is not in OpenCode's server's list; the agent has it as listed here.
          if (state === 'unknown') server.status = 'connected';
          if (listing.instructions) server.instructions = listing.instructions;
          if (listing.resources) server.resources = true;
        } catch (error) {
          server.problem = `its tools could not be listed: ${error instanceof Error ? error.message : String(error)}`;
        }
      }
    }
    out.push(server);
  }
  return out;
}

const isEnabled = (raw: unknown): boolean => (raw as { enabled?: unknown } | null)?.enabled !== false;

function asMcpConfig(raw: unknown): McpConfig | null {
  if (typeof raw !== 'object' || raw === null) return null;
  const value = raw as Record<string, unknown>;
  const timeout = typeof value.timeout === 'number' ? value.timeout : undefined;
  const strings = (v: unknown): Record<string, string> | undefined =>
    typeof v === 'object' && v !== null
      ? Object.fromEntries(Object.entries(v).filter((e): e is [string, string] => typeof e[1] === 'string'))
      : undefined;
  if (value.type === 'remote' && typeof value.url === 'string') {
    const headers = strings(value.headers);
    return { type: 'remote', url: value.url, ...(headers ? { headers } : {}), ...(timeout ? { timeout } : {}) };
  }
  if (Array.isArray(value.command) && value.command.every((c) => typeof c === 'string')) {
    const environment = strings(value.environment);
    return {
      type: 'local',
      command: value.command as string[],
      ...(environment ? { environment } : {}),
      ...(timeout ? { timeout } : {}),
    };
  }
  return null;
}

/**
 * Tools OpenCode leaves out of the request (`Permission.disabled`): those whose last matching
 * rule denies them for every pattern. Edits, writes and patches are the `edit` permission.
 */
export function disabledTools(ids: readonly string[], rules: readonly Rule[]): string[] {
  return ids.filter((id) => {
    const permission = ['edit', 'write', 'apply_patch', 'patch'].includes(id) ? 'edit' : id;
    const rule = rules.findLast((r) => wildcard(r.permission).test(permission));
    return rule !== undefined && rule.pattern === '*' && rule.action === 'deny';
  });
}

/** OpenCode's `Wildcard.match`: `*` anything, `?` one character, anchored. */
function wildcard(pattern: string): RegExp {
  const body = pattern
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${body}$`, 's');
}

/** Every use of the sessions as not recorded, with why. */
export function notRecorded(sessions: readonly SessionUses[], why: string): RecordedDefinitions[] {
  return sessions.flatMap((s) =>
    s.uses.map((use) => ({
      sessionId: s.sessionId,
      key: definitionsKey(use.agent, use.providerID, use.modelID),
      parentSessionId: null,
      definitions: failedDefinitions(use, why),
    })),
  );
}

function failedDefinitions(use: RuntimeUse, failed: string): OpenCodeDefinitions {
  return {
    kind: 'opencode',
    version: DEFINITIONS_VERSION,
    opencode: 'unknown',
    agent: use.agent,
    providerID: use.providerID,
    modelID: use.modelID,
    apiId: use.modelID,
    tools: [],
    disabled: [],
    mcp: [],
    environment: null,
    agentPrompt: null,
    problems: [],
    failed,
  };
}
