/**
 * The dynamic workspace context the backend puts in the first prompt of a session (contract §1):
 * one `<workspace-context>` text of sections, each naming its semantic source, sent to the agent
 * as an ACP text block for the assistant only — OpenCode stores it as a synthetic text part, and
 * the report attributes each section to its source. Built from the workspace folder:
 *
 * - `meta/*.json`: cluster and alert metadata (`issue*` files: the incident record), each file
 *   whole up to a cap;
 * - `evidence/**`: an index (paths and sizes), never the files themselves — the agent reads what
 *   it needs, and those reads count as Evidence where they happen.
 *
 * Files are read through the report's safe reader: inside the root, no FIFOs, no binaries.
 */
import { workspaceContextText } from '../../shared/workspace-context';
import { fmtBytes } from '../../shared/format';
import type { SourceId } from '../../shared/sources';
import { WorkspaceReader } from '../report/read-workspace';

/** A metadata file larger than this is cut, with a note saying so. */
export const MAX_SECTION_CHARS = 16 * 1024;
const MAX_INDEX_FILES = 200;

export interface ContextSection {
  source: SourceId;
  label: string;
  body: string;
}

export function workspaceSections(root: string): ContextSection[] {
  const reader = new WorkspaceReader(root, { maxFileBytes: MAX_SECTION_CHARS * 4 });
  const sections: ContextSection[] = [];
  for (const entry of reader.list('meta').sort((a, b) => a.name.localeCompare(b.name))) {
    if (entry.isDirectory || !entry.name.endsWith('.json')) continue;
    const file = reader.read(`meta/${entry.name}`);
    if (!file.ok) continue;
    const issue = /issue|incident/i.test(entry.name);
    const body =
      file.text.length > MAX_SECTION_CHARS
        ? `${file.text.slice(0, MAX_SECTION_CHARS)}\n… (${fmtBytes(file.size)} in all: read meta/${entry.name} for the rest)`
        : file.text.trimEnd();
    sections.push({
      source: issue ? 'issue_source_files' : 'cluster_alert_metadata',
      label: labelFor(entry.name),
      body,
    });
  }
  const evidence = evidenceIndex(reader);
  if (evidence.length) sections.push({ source: 'evidence', label: 'Evidence index', body: evidence.join('\n') });
  return sections;
}

/** The text of the first prompt's workspace context; null when the folder has nothing to offer. */
export function workspaceContext(root: string): string | null {
  const sections = workspaceSections(root);
  return sections.length ? workspaceContextText(sections) : null;
}

function labelFor(name: string): string {
  if (/cluster/i.test(name)) return 'Cluster overview';
  if (/alert/i.test(name)) return 'Firing alerts';
  if (/issue|incident/i.test(name)) return 'Incident record';
  return `Metadata: ${name}`;
}

/** `evidence/…` paths with sizes, summaries first, then by path; bounded. */
function evidenceIndex(reader: WorkspaceReader): string[] {
  const files: { path: string; size: number }[] = [];
  const walk = (dir: string, depth: number) => {
    if (depth > 4 || files.length >= MAX_INDEX_FILES) return;
    for (const entry of reader.list(dir).sort((a, b) => a.name.localeCompare(b.name))) {
      const path = `${dir}/${entry.name}`;
      if (entry.isSymlink) continue;
      if (entry.isDirectory) walk(path, depth + 1);
      else {
        const size = reader.size(path);
        if (size !== null && files.length < MAX_INDEX_FILES) files.push({ path, size });
      }
    }
  };
  // A linked evidence folder that leaves the workspace is not walked (reader.size says null).
  if (reader.size('evidence') === 0) walk('evidence', 0);
  const summaryFirst = (p: string) => (/summary/i.test(p) ? 0 : 1);
  return files
    .sort((a, b) => summaryFirst(a.path) - summaryFirst(b.path) || a.path.localeCompare(b.path))
    .map((f) => `${f.path} (${fmtBytes(f.size)})`);
}
