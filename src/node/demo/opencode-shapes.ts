/**
 * How OpenCode renders tool results and prompt attachments into the text the model sees. The
 * demo builder uses these to produce believable rows; the shapes follow OpenCode's read and
 * skill tools and its prompt attachment handling.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';

/** The `read` tool's output: numbered lines inside <content>, plus nested AGENTS.md reminders. */
export function readToolOutput(root: string, relPath: string, offset = 1, limit = 2000): string {
  const absolute = join(root, relPath);
  const lines = readFileSync(absolute, 'utf8').replace(/\n$/, '').split('\n');
  const last = Math.min(lines.length, offset + limit - 1);
  const numbered = lines
    .slice(offset - 1, last)
    .map((line, index) => `${offset + index}: ${line}`)
    .join('\n');
  const tail =
    last < lines.length
      ? `(File has more lines. Use 'offset' parameter to read beyond line ${last})`
      : `(End of file - total ${lines.length} lines)`;
  let output = `<path>${absolute}</path>\n<type>file</type>\n<content>\n${numbered}\n\n${tail}\n</content>`;
  const reminder = nestedInstructions(root, relPath);
  if (reminder) {
    const text = readFileSync(reminder, 'utf8').trim();
    output += `\n\n<system-reminder>\nInstructions from: ${reminder}\n${text}\n</system-reminder>`;
  }
  return output;
}

/** An AGENTS.md in the read file's folder (not the root one, which is always loaded). */
function nestedInstructions(root: string, relPath: string): string | null {
  let folder = dirname(join(root, relPath));
  while (relative(root, folder) !== '' && !relative(root, folder).startsWith('..')) {
    const candidate = join(folder, 'AGENTS.md');
    if (existsSync(candidate)) return candidate;
    folder = dirname(folder);
  }
  return null;
}

export function skillToolOutput(root: string, name: string, files: string[]): string {
  const dir = join(root, '.opencode', 'skills', name);
  const body = readFileSync(join(dir, 'SKILL.md'), 'utf8')
    .replace(/^---\n[\s\S]*?\n---\n/, '')
    .trim();
  const fileList = files.map((file) => `<file>${join(dir, file.split('/').join(sep))}</file>`).join('\n');
  return [
    `<skill_content name="${name}">`,
    `# Skill: ${name}`,
    '',
    body,
    '',
    `Base directory for this skill: file://${dir}`,
    'Relative paths in this skill (e.g., scripts/, reference/) are relative to this base directory.',
    'Note: file list is sampled.',
    '',
    '<skill_files>',
    fileList,
    '</skill_files>',
    '</skill_content>',
  ].join('\n');
}

export function readCallText(absolutePath: string): string {
  return `Called the Read tool with the following input: ${JSON.stringify({ filePath: absolutePath })}`;
}
