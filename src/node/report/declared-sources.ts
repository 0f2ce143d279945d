/**
 * A workspace's own sources (contract §3): `.investibook/sources.json` in its folder, or the file
 * `debug context --sources FILE` names. It declares sources and claims paths, tools (`mcp:SERVER`
 * for an MCP server's) and web addresses for them — for a source of its own, or one of the nine.
 * Nothing here can fail a report: a malformed file, a claim made twice, a claim on the candidate
 * skill cache are warnings, and what is sound is kept (the first claim wins).
 */
import * as z from 'zod/mini';
import { isBuiltinSourceId, SOURCE_LABELS, EXTRA_SOURCES } from '../../shared/sources';
import type { DeclaredSource } from '../core';

/** Where a workspace declares its sources, relative to its root. */
export const SOURCES_FILE = '.investibook/sources.json';

const list = z.optional(z.array(z.string().check(z.minLength(1))));
const fileSchema = z.object({
  sources: z.array(
    z.object({
      id: z.string().check(z.regex(/^[a-z0-9][a-z0-9_.:-]{0,63}$/, 'an id is lowercase letters, digits and _.:-')),
      label: z.optional(z.string().check(z.minLength(1))),
      paths: list,
      tools: list,
      urls: list,
    }),
  ),
});

/** The candidate skill cache is never counted, whatever a declaration says (contract §2). */
const NEVER = '.opencode/.all-skills';

export function parseDeclaredSources(text: string, file: string): { sources: DeclaredSource[]; warnings: string[] } {
  const warnings: string[] = [];
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return { sources: [], warnings: [`${file}: not valid JSON (${(error as Error).message}); no sources declared`] };
  }
  const parsed = fileSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const at = issue.path.length ? ` at ${issue.path.join('.')}` : '';
    return { sources: [], warnings: [`${file}: ${issue.message}${at}; no sources declared`] };
  }
  const claimed = new Map<string, string>();
  const sources: DeclaredSource[] = [];
  for (const declared of parsed.data.sources) {
    if (sources.some((s) => s.id === declared.id)) {
      warnings.push(`${file}: source ${declared.id} is declared twice; the first is kept`);
      continue;
    }
    const keep = (kind: string, values: string[] | undefined) =>
      (values ?? []).filter((value) => {
        if (kind === 'path' && (value === NEVER || value.startsWith(`${NEVER}/`))) {
          warnings.push(`${file}: ${declared.id} claims ${value}; the candidate skill cache is never counted`);
          return false;
        }
        const key = `${kind}\u0000${value.toLowerCase()}`;
        const owner = claimed.get(key);
        if (owner !== undefined) {
          warnings.push(`${file}: ${kind} ${value} is claimed by ${owner} and ${declared.id}; ${owner} keeps it`);
          return false;
        }
        claimed.set(key, declared.id);
        return true;
      });
    sources.push({
      id: declared.id,
      label: labelOf(declared.id, declared.label),
      paths: keep('path', declared.paths),
      tools: keep('tool', declared.tools),
      urls: keep('address', declared.urls),
    });
  }
  return { sources, warnings };
}

/** One of the nine keeps its own label (contract §3); another source its declared one, else its id. */
function labelOf(id: string, label: string | undefined): string {
  if (isBuiltinSourceId(id)) return SOURCE_LABELS[id];
  return label ?? EXTRA_SOURCES.find((s) => s.id === id)?.label ?? id;
}
