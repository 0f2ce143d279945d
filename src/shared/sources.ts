/**
 * The semantic sources (contract §3), in one table: id, label, colour and the workspace folders
 * whose reads belong to each. Attribution, the wire schema, the report's colours and legends all
 * read this table; a new source is a new row (and, if files belong to it, a path rule).
 * Browser-safe: plain data.
 *
 * The colours are chosen apart from each other (and from the remainder rows' neutral and hidden
 * reasoning colours) by at least ΔE 21 (CIELAB) within each scheme, so that any two of them can
 * sit side by side in the bar and still be told apart.
 */

export interface PathRule {
  /** A workspace folder (relative, POSIX separators): the path itself or anything under it. */
  under: string;
  /** How a read of a file there is labelled: `rest` is the path inside the folder. */
  read: (rest: string, name: string) => string;
}

export interface SourceDef {
  id: string;
  label: string;
  /** For charts, legends and reader blocks, per colour scheme. */
  color: { light: string; dark: string };
  /** Folders whose reads belong here; the first rule that matches a path wins. */
  paths?: readonly PathRule[];
}

const metaKind = (name: string): string =>
  /cluster/i.test(name)
    ? 'cluster metadata'
    : /alert/i.test(name)
      ? 'alert metadata'
      : /issue/i.test(name)
        ? 'issue metadata'
        : 'metadata';

export const SOURCES = [
  {
    id: 'evidence',
    label: 'Evidence',
    color: { light: '#2f6fec', dark: '#6b9bff' },
    paths: [
      {
        under: 'evidence',
        read: (rest, name) => (/summary/i.test(name) ? `Read evidence summary: ${rest}` : `Read evidence: ${rest}`),
      },
    ],
  },
  {
    id: 'skills_knowledge',
    label: 'Skills & Knowledge',
    color: { light: '#8b5cf6', dark: '#a78bfa' },
    // Its folders are the agent runtime's own (its layout's skillDirs, core/runtime.ts).
  },
  {
    id: 'cluster_alert_metadata',
    label: 'Cluster & Alert Metadata',
    color: { light: '#0e9594', dark: '#2dd4bf' },
    paths: [{ under: 'meta', read: (rest, name) => `Read ${metaKind(name)}: ${rest}` }],
  },
  { id: 'agent_instructions', label: 'Agent/runtime instructions', color: { light: '#d97706', dark: '#fbbf24' } },
  { id: 'conversation', label: 'Conversation', color: { light: '#475569', dark: '#cbd5e1' } },
  { id: 'assistant_reasoning', label: 'Assistant reasoning (visible)', color: { light: '#db2777', dark: '#f472b6' } },
  { id: 'attachment_metadata', label: 'Attachment metadata', color: { light: '#65a30d', dark: '#a3e635' } },
  {
    id: 'issue_source_files',
    label: 'Issue/source files',
    color: { light: '#b91c1c', dark: '#f87171' },
    paths: [
      { under: 'issues', read: (rest) => `Read issue file: ${rest}` },
      { under: 'sources', read: (rest) => `Read source file: ${rest}` },
    ],
  },
  {
    id: 'unknown_tool_payload',
    label: 'Unknown tool payload',
    color: { light: '#8d6e63', dark: '#a1887f' },
  },
] as const satisfies readonly SourceDef[];

/** One of the nine sources every report lists (contract §3). */
export type BuiltinSourceId = (typeof SOURCES)[number]['id'];

/**
 * Sources after the nine, listed only when something is in them: pages fetched from the web
 * (contract §3: "a fetched page by its address"). A workspace may declare more
 * (`.investibook/sources.json`), and an MCP server whose tools no declaration claims is a row of
 * its own (`mcp:SERVER`).
 */
export const EXTRA_SOURCES = [
  { id: 'web_pages', label: 'Web pages', color: { light: '#0369a1', dark: '#38bdf8' } },
] as const satisfies readonly SourceDef[];

/** A source id: one of the nine, an extra one, a workspace's own or an MCP server's. */
export type SourceId = BuiltinSourceId | (string & {});

export const SOURCE_IDS: readonly BuiltinSourceId[] = SOURCES.map((s) => s.id);

export const SOURCE_LABELS = Object.fromEntries(SOURCES.map((s) => [s.id, s.label])) as Record<BuiltinSourceId, string>;

const byId = new Map<string, SourceDef>([...SOURCES, ...EXTRA_SOURCES].map((s) => [s.id, s]));

/** A source the program knows by itself (the nine and the extra ones). */
export function isSourceId(value: unknown): value is SourceId {
  return typeof value === 'string' && byId.has(value);
}

export function isBuiltinSourceId(value: unknown): value is BuiltinSourceId {
  return typeof value === 'string' && (SOURCE_IDS as readonly string[]).includes(value);
}

/**
 * The sources a report lists, in order: the nine, then the workspace's own (declared, even when
 * empty), then any other source something was attributed to, in the order first met.
 */
export function reportSourceIds(used: Iterable<string>, declared: readonly { id: string }[] = []): string[] {
  const ids: string[] = [...SOURCE_IDS];
  for (const id of [...declared.map((d) => d.id), ...used]) if (!ids.includes(id)) ids.push(id);
  return ids;
}

/** The id of an MCP server's own row, and its label. */
export const mcpSourceId = (server: string): string => `mcp:${server}`;

/** The label of any source id, known or not. */
export const sourceLabel = (id: string): string =>
  byId.get(id)?.label ?? (id.startsWith('mcp:') ? `MCP server: ${id.slice(4)}` : id.replaceAll('_', ' '));

const NEUTRAL = { light: '#9ca3af', dark: '#6b7280' };

/** A CSS colour for any source id, following the colour scheme (CSS light-dark()). */
export function sourceColor(id: string): string {
  const { light, dark } = byId.get(id)?.color ?? NEUTRAL;
  return `light-dark(${light}, ${dark})`;
}

/** Every folder rule of the table, with its source, in table order. */
export const PATH_RULES: readonly (PathRule & { source: SourceId })[] = SOURCES.flatMap((s) =>
  'paths' in s ? s.paths.map((rule) => ({ ...rule, source: s.id })) : [],
);
