/**
 * The dynamic workspace context (contract §1): investibook's own block, added to a new session's
 * first prompt for the model only, whatever the runtime (for OpenCode, a synthetic text part):
 *
 *   <workspace-context>
 *   <section source="SOURCE_ID" label="Human label">…</section>
 *   </workspace-context>
 */
export const WORKSPACE_CONTEXT_OPEN = '<workspace-context>';
const SECTION = /<section\s+source="([^"]*)"\s+label="([^"]*)"\s*>[\s\S]*?<\/section>/g;

export interface ContextSection {
  source: string;
  label: string;
  /** The section as the model reads it, tags included. */
  text: string;
}

export function isWorkspaceContext(text: string): boolean {
  return text.includes(WORKSPACE_CONTEXT_OPEN);
}

/** The sections of a workspace-context text, and what is left around them (the framing). */
export function parseWorkspaceContext(text: string): { sections: ContextSection[]; framing: string } {
  const sections: ContextSection[] = [];
  let framing = text;
  for (const match of text.matchAll(SECTION)) {
    sections.push({ source: match[1]!, label: unescapeXml(match[2]!), text: match[0] });
    framing = framing.replace(match[0], '');
  }
  return { sections, framing };
}

export function workspaceContextText(sections: readonly { source: string; label: string; body: string }[]): string {
  // A body cannot close its section early (a metadata file holding "</section>" would fake the next one).
  const body = sections.map(
    (s) =>
      `<section source="${s.source}" label="${escapeXml(s.label)}">\n${s.body.replaceAll('</section', '<\\/section')}\n</section>`,
  );
  return `${WORKSPACE_CONTEXT_OPEN}\n${body.join('\n')}\n</workspace-context>`;
}

/** XML escaping as OpenCode's skill catalog does it (& < > " '). */
export function escapeXml(text: string): string {
  return text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;');
}

export function unescapeXml(text: string): string {
  return text
    .replaceAll('&quot;', '"')
    .replaceAll('&lt;', '<')
    .replaceAll('&gt;', '>')
    .replaceAll('&#39;', "'")
    .replaceAll('&amp;', '&');
}
