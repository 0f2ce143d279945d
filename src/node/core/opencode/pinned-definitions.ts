/**
 * OpenCode's own definitions for a session that recorded none where it ran (an import): those the
 * pinned OpenCode sends for the call's agent and model, as its own server listed them to
 * `npm run opencode-tools` (catalog/opencode-tools.json) — each built-in agent's tools (its
 * permission rules remove some) and its own prompt, for every model of OpenCode's catalog and
 * those the kept public exports name. What the export cannot tell is left out, never guessed:
 * the environment block (the machine, the date), the MCP servers' and the skills' definitions
 * (their names are in the rows, their schemas are not). Pure.
 */
import type { OpenCodeDefinitions } from '../../../shared/opencode/definitions';
import pinned from '../catalog/opencode-tools.json' with { type: 'json' };
import { listedBy } from '../model-catalog';

/** The OpenCode that measured them. */
export const PINNED_OPENCODE = pinned.opencode;

const TOOLS = pinned.tools as Record<string, { description: string; parameters: string }>;
const SETS = pinned.sets as string[][];
const MODELS = pinned.models as Record<string, number>;
const AGENTS = pinned.agents as Record<string, { promptChars: number | null; disabled: string[] }>;

/** The tool list OpenCode sends with `model` ("provider/model"), or null when it was not asked for that model. */
function toolList(model: string): string[] | null {
  const set = MODELS[model];
  if (set !== undefined) return SETS[set]!;
  const slash = model.indexOf('/');
  const listed = slash > 0 && listedBy(model.slice(0, slash), model.slice(slash + 1));
  return listed ? SETS[pinned.defaultSet]! : null;
}

/**
 * The pinned OpenCode's definitions for a call of `agent` to `model`, or why there are none in
 * words. A call whose rows name no agent is the build agent's (OpenCode's default).
 */
export function pinnedDefinitions(
  agent: string | null,
  model: string | null,
): { definitions: OpenCodeDefinitions } | { reason: string } {
  const name = agent ?? 'build';
  const own = AGENTS[name];
  if (!own)
    return {
      reason: `the session's agent “${name}” is not one of OpenCode ${PINNED_OPENCODE}'s built-in agents (${Object.keys(AGENTS).join(', ')}), whose definitions were measured`,
    };
  const list = model ? toolList(model) : null;
  if (!model || !list)
    return {
      reason: `OpenCode ${PINNED_OPENCODE}'s tools were measured for the models of its own catalog, and ${model ?? 'the model of this call'} is not among them (the tools it is sent go by its provider and model)`,
    };
  const slash = model.indexOf('/');
  const [providerID, modelID] = [model.slice(0, slash), model.slice(slash + 1)];
  return {
    definitions: {
      kind: 'opencode',
      version: 1,
      opencode: PINNED_OPENCODE,
      agent: name,
      providerID,
      modelID,
      apiId: modelID,
      tools: list
        .filter((key) => !own.disabled.includes(key.split('@')[0]!))
        .map((key) => ({ id: key.split('@')[0]!, ...TOOLS[key]! })),
      disabled: own.disabled,
      mcp: [],
      environment: null,
      agentPrompt: own.promptChars === null ? null : { chars: own.promptChars },
      problems: [],
    },
  };
}
