/**
 * The pinned OpenCode runtime: where its binary is (installed on demand into .cache/opencode
 * from the npm registry, never at `npm install` time: it is ~185 MB), the environment that
 * keeps it off the network and out of the user's own configuration, and the configuration
 * that points it at a model server.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { PROJECT_ROOT } from '../../project';
import type { AgentSettings } from '../settings';

export const OPENCODE_VERSION = '1.18.33';
const CACHE_DIR = join(PROJECT_ROOT, '.cache', 'opencode');

const PLATFORM_PACKAGE = `opencode-${process.platform === 'win32' ? 'windows' : process.platform}-${process.arch}`;

/** The binary of the pinned version; null when it is not installed yet. */
export function installedOpencode(): string | null {
  const bin = join(CACHE_DIR, 'node_modules', PLATFORM_PACKAGE, 'bin', 'opencode');
  return existsSync(bin) ? bin : null;
}

/** Installs the pinned `opencode-ai` into .cache/opencode (once) and returns its binary. */
export async function ensureOpencode(log: (line: string) => void = () => {}): Promise<string> {
  const found = installedOpencode();
  if (found) return found;
  mkdirSync(CACHE_DIR, { recursive: true });
  if (!existsSync(join(CACHE_DIR, 'package.json'))) {
    writeFileSync(
      join(CACHE_DIR, 'package.json'),
      `${JSON.stringify({ name: 'opencode-runtime', private: true }, null, 2)}\n`,
    );
  }
  log(`Installing opencode-ai@${OPENCODE_VERSION} into ${CACHE_DIR} (once, ~185 MB)…`);
  await promisify(execFile)(
    'npm',
    ['install', '--no-audit', '--no-fund', '--save-exact', `opencode-ai@${OPENCODE_VERSION}`],
    { cwd: CACHE_DIR, maxBuffer: 16 * 1024 * 1024 },
  );
  const bin = installedOpencode();
  if (!bin)
    throw new Error(
      `opencode-ai@${OPENCODE_VERSION} installed, but ${PLATFORM_PACKAGE} has no binary for this machine`,
    );
  return bin;
}

/** OpenCode's switches for a run of its own: no auto-update, models.dev fetch, sharing, LSP downloads, Claude Code or external skills. */
export const OPENCODE_QUIET = {
  OPENCODE_DISABLE_AUTOUPDATE: '1',
  OPENCODE_DISABLE_MODELS_FETCH: '1',
  OPENCODE_DISABLE_SHARE: '1',
  OPENCODE_DISABLE_LSP_DOWNLOAD: '1',
  OPENCODE_DISABLE_CLAUDE_CODE: '1',
  OPENCODE_DISABLE_EXTERNAL_SKILLS: '1',
} as const;

/**
 * An environment for OpenCode with its own HOME and XDG folders under `home`: no auto-update,
 * no models.dev fetch, no sharing, no LSP downloads, no Claude Code or external skills.
 */
export function opencodeEnv(home: string, base: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const xdg = {
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_DATA_HOME: join(home, '.local', 'share'),
    XDG_CACHE_HOME: join(home, '.cache'),
    XDG_STATE_HOME: join(home, '.local', 'state'),
  };
  for (const dir of Object.values(xdg)) mkdirSync(dir, { recursive: true });
  return {
    PATH: base.PATH ?? '/usr/local/bin:/usr/bin:/bin',
    LANG: base.LANG ?? 'C.UTF-8',
    TZ: base.TZ ?? 'UTC',
    ...xdg,
    ...OPENCODE_QUIET,
  };
}

export interface ScriptedProviderConfig {
  /** The scripted model's base URL (…/v1). */
  baseURL: string;
  contextLimit?: number;
  outputLimit?: number;
  /** OpenCode's opt-in pruning of old tool outputs. */
  prune?: boolean;
  /** Extra top-level settings (permission, compaction, …). */
  extra?: Record<string, unknown>;
  /**
   * The main model's id (default `scripted`): `claude-scripted` makes OpenCode treat it as a
   * Claude model (its Anthropic system prompt) while it still speaks the OpenAI-compatible API.
   */
  modelId?: string;
  /** Prices OpenCode bills the scripted model's calls at (per million tokens); null: free. */
  cost?: ScriptedPrices | null;
}

/** OpenCode's model `cost` setting: USD per million tokens. */
export interface ScriptedPrices {
  input: number;
  output: number;
  cache_read: number;
  cache_write: number;
}

/**
 * What the scripted model's calls are billed at unless told otherwise: Claude Sonnet 4's list
 * prices, so that the demo and the recordings carry per-call costs as a real session does (the
 * money is OpenCode's own computation from these prices and the model's counts).
 */
export const SCRIPTED_PRICES: ScriptedPrices = { input: 3, output: 15, cache_read: 0.3, cache_write: 3.75 };

export const SCRIPTED_PROVIDER = 'scripted';
export const SCRIPTED_MODEL = 'scripted';
export const SCRIPTED_SMALL_MODEL = 'scripted-small';

/**
 * OpenCode's global configuration (in the private XDG config folder, so the workspace's own
 * opencode.json stays untouched): the scripted model as the only provider.
 */
export function writeScriptedConfig(env: NodeJS.ProcessEnv, config: ScriptedProviderConfig): string {
  const dir = join(env.XDG_CONFIG_HOME!, 'opencode');
  mkdirSync(dir, { recursive: true });
  const limit = { context: config.contextLimit ?? 200_000, output: config.outputLimit ?? 8_000 };
  const modelId = config.modelId ?? SCRIPTED_MODEL;
  const body = {
    $schema: 'https://opencode.ai/config.json',
    model: `${SCRIPTED_PROVIDER}/${modelId}`,
    small_model: `${SCRIPTED_PROVIDER}/${SCRIPTED_SMALL_MODEL}`,
    autoupdate: false,
    share: 'disabled',
    enabled_providers: [SCRIPTED_PROVIDER],
    ...(config.prune ? { compaction: { prune: true } } : {}),
    provider: {
      [SCRIPTED_PROVIDER]: {
        npm: '@ai-sdk/openai-compatible',
        name: 'Scripted model (local)',
        options: { baseURL: config.baseURL, apiKey: 'scripted' },
        models: {
          // Images too: the demo attaches a screenshot, and OpenCode replaces media a model cannot read.
          [modelId]: {
            name: 'Scripted',
            limit,
            modalities: { input: ['text', 'image'], output: ['text'] },
            ...(config.cost === null ? {} : { cost: config.cost ?? SCRIPTED_PRICES }),
          },
          [SCRIPTED_SMALL_MODEL]: { name: 'Scripted (titles)', limit: { context: limit.context, output: 1000 } },
        },
      },
    },
    ...config.extra,
  };
  const path = join(dir, 'opencode.json');
  writeFileSync(path, `${JSON.stringify(body, null, 2)}\n`);
  return path;
}

/**
 * The pinned OpenCode as the server's agent (demo, screenshots, tests): `opencode acp`, its own
 * export, the production defaults — sandboxed, asking before anything but reads, the workspace
 * config only tightening, every request refused.
 */
export function pinnedAgentSettings(
  bin: string,
  env: NodeJS.ProcessEnv,
  stateDir: string,
  overrides: Partial<AgentSettings> = {},
): AgentSettings {
  return {
    command: bin,
    args: ['acp'],
    env,
    exporter: { command: bin, args: ['export', '{session}'] },
    runtimeServer: { command: bin, args: ['serve'] },
    permissions: 'reject',
    workspacePermissions: 'tighten',
    sandbox: 'bwrap',
    bwrap: 'bwrap',
    sandboxRead: [],
    stateDir,
    hidden: [],
    turnTimeoutMs: 120_000,
    ...overrides,
  };
}
