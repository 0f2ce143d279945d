/**
 * The models the pinned OpenCode knows: its own models.dev snapshot (catalog/opencode-models.json,
 * written by `npm run model-catalog` from the opencode-ai binary, with its version and SHA-256),
 * so a session whose rows carry no window (an import) still has one, with the source said.
 * Nothing is fetched at run time. Pure.
 *
 * A model no provider lists (a local or scripted one, as the demo's) is answered from the list of
 * every listed id (catalog/opencode-model-ids.json, written beside it), without reading the
 * catalog: the compiled programs parse a large JSON file's members when first read
 * (scripts/build-node.mjs), and the catalog's models are 2 MB of heap, ~35 ms of a report's CPU
 * (issue 42.1).
 */
import catalog from './catalog/opencode-models.json' with { type: 'json' };
import listedIds from './catalog/opencode-model-ids.json' with { type: 'json' };

type Row = (number | null)[];

export interface CatalogModel {
  context: number;
  output?: number;
  input?: number;
  /** Per million tokens, where models.dev lists them. */
  prices?: { input: number; output: number; cacheRead?: number; cacheWrite?: number };
  /** Where the figures come from, in words: "OpenCode 1.18.33's model list (models.dev), openai/gpt-5.3-codex". */
  source: string;
  /**
   * Listed neither by the rows' provider nor by the model's maker, only by others (the entry most
   * of them share): its window holds, but its prices are another provider's, not the model's.
   */
  byMajority?: true;
}

type Models = Record<string, Record<string, Row>>;
/** Read when a lookup needs it, not when the module loads (see above). */
const catalogModels = (): Models => catalog.models as Models;

/** Whether some provider lists a model under `id`. */
const isListed = (id: string) => listedIds.includes(`\n${id}\n`);

/** Whether `provider` lists a model under `id` (the catalog read only when some provider does). */
export const listedBy = (provider: string, id: string): boolean =>
  isListed(id) && catalogModels()[provider]?.[id] !== undefined;

/**
 * Providers that make the models they serve: where the rows name a provider the catalog does not
 * know (a relay, a local server), the model's maker's entry is the one to trust.
 */
const MAKERS = [
  'anthropic',
  'openai',
  'google',
  'deepseek',
  'zhipuai',
  'zai',
  'moonshotai',
  'minimax',
  'xai',
  'mistral',
  'alibaba',
];

/** The ids a model may be listed under: as named, without a local tag (`:cloud`), without `-free`. */
const idForms = (id: string): string[] => [
  ...new Set([
    id,
    id.replace(/:[\w.-]+$/, ''),
    id.replace(/-free$/, ''),
    id.replace(/:[\w.-]+$/, '').replace(/-free$/, ''),
  ]),
];

function toModel(row: Row, where: string, note = ''): CatalogModel {
  const [context, output, input, costInput, costOutput, cacheRead, cacheWrite] = row;
  return {
    context: context!,
    ...(output ? { output } : {}),
    ...(input ? { input } : {}),
    ...(costInput != null && costOutput != null
      ? {
          prices: {
            input: costInput,
            output: costOutput,
            ...(cacheRead != null ? { cacheRead } : {}),
            ...(cacheWrite != null ? { cacheWrite } : {}),
          },
        }
      : {}),
    source: `OpenCode ${catalog.opencode}'s model list (models.dev), ${where}${note}`,
  };
}

/** A model ("provider/model", as the rows name it) as the catalog lists it, or null when no entry does. */
export function catalogModel(model: string | undefined): CatalogModel | null {
  if (!model) return null;
  const slash = model.indexOf('/');
  const provider = slash < 0 ? '' : model.slice(0, slash);
  const id = slash < 0 ? model : model.slice(slash + 1);
  // Every entry below is listed under one of these forms (the first is `id` itself).
  if (!idForms(id).some(isListed)) return null;
  const MODELS = catalogModels();
  const exact = MODELS[provider]?.[id];
  if (exact) return toModel(exact, model);
  for (const form of idForms(id)) {
    const own = MODELS[provider]?.[form];
    if (own) return toModel(own, `${provider}/${form}`);
    const maker = MAKERS.find((m) => MODELS[m]?.[form]);
    if (maker)
      return toModel(MODELS[maker]![form]!, `${maker}/${form}`, ` (${provider || 'its provider'} is not listed)`);
    const listed = Object.entries(MODELS).filter(([, models]) => models[form]);
    if (listed.length) {
      const [where, models] = mostCommon(listed, form);
      const model = toModel(models[form]!, `${where}/${form}`, ` (as most of its ${listed.length} providers list it)`);
      return { ...model, byMajority: true };
    }
  }
  return null;
}

/** The provider whose window for `form` most providers share (the first of them). */
function mostCommon(listed: [string, Record<string, Row>][], form: string): [string, Record<string, Row>] {
  const counts = new Map<number, number>();
  for (const [, models] of listed) counts.set(models[form]![0]!, (counts.get(models[form]![0]!) ?? 0) + 1);
  const best = [...counts].sort((a, b) => b[1] - a[1])[0]![0];
  return listed.find(([, models]) => models[form]![0] === best)!;
}

/** The catalog's own name, for notes. */
export const CATALOG_SOURCE = catalog.source;
