/**
 * The demo's sessions, recorded from the real OpenCode runtime like the test fixtures: the
 * story in demo/conversation.json (a warm-up session and the INC-4821 investigation) played by
 * the scripted model in the demo workspace itself, with its own opencode.json (edits denied,
 * shell commands asked for, `tiup cluster` denied). npm start seeds the demo database from
 * these recordings, so every row the demo shows was written by OpenCode.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { workspaceContextText } from '../../src/shared/opencode/format';
import { PROJECT_ROOT } from '../../src/node/project';
import type { ScriptedStep, ScriptedToolCall, ScriptedTurn } from '../../src/node/scripted-model/script';
import type { PromptSpec, Scenario } from './scenarios';

type ToolSpec = {
  read?: string;
  offset?: number;
  limit?: number;
  skill?: string;
  bash?: string;
  grep?: { pattern: string; path: string };
  glob?: { pattern: string; path: string };
  status?: 'completed' | 'error' | 'running';
};

type Step =
  | {
      user: string;
      workspaceContext?: { source: string; label: string; text?: string; file?: string }[];
      attachments?: ({ image: string } | { file: string })[];
    }
  | { assistant: { reasoning?: string; tools?: ToolSpec[]; text?: string } }
  | { compaction: true; summary: string };

interface Conversation {
  sessions: { id: string; title: string; steps: Step[] }[];
}

const DEMO = join(PROJECT_ROOT, 'demo');
const conversation = (): Conversation =>
  JSON.parse(readFileSync(join(DEMO, 'conversation.json'), 'utf8')) as Conversation;

function call(root: string, tool: ToolSpec): ScriptedToolCall {
  if (tool.read) {
    const args: Record<string, unknown> = { filePath: `${root}/${tool.read}` };
    if (tool.offset !== undefined) Object.assign(args, { offset: tool.offset, limit: tool.limit });
    return { name: 'read', args };
  }
  if (tool.skill) return { name: 'skill', args: { name: tool.skill } };
  if (tool.bash) return { name: 'bash', args: { command: tool.bash } };
  if (tool.grep) return { name: 'grep', args: { pattern: tool.grep.pattern, path: `${root}/${tool.grep.path}` } };
  if (tool.glob) return { name: 'glob', args: { pattern: tool.glob.pattern, path: `${root}/${tool.glob.path}` } };
  throw new Error(`demo tool step without a kind: ${JSON.stringify(tool)}`);
}

/**
 * One session of the story as prompts and a script. OpenCode ends a turn at the first reply
 * without tool calls, so reasoning-only steps join the next step, and a compaction is the
 * `/compact` command followed by a prompt to carry on.
 */
function session(index: number): { prompts: PromptSpec[]; turns: ScriptedTurn[]; summary: string } {
  const steps = conversation().sessions[index]!.steps;
  const prompts: PromptSpec[] = [];
  const turns: ScriptedTurn[] = [];
  let summary = 'Done so far: nothing to summarise.';
  let carried: string | undefined;
  const turn = () => turns[turns.length - 1]!;
  const start = (prompt: PromptSpec) => {
    prompts.push(prompt);
    turns.push({ when: prompt.text, steps: [] });
  };
  for (const [k, step] of steps.entries()) {
    if ('user' in step) {
      // "…Compact the conversation…": the operator's request becomes OpenCode's command.
      if ('compaction' in (steps[k + 1] ?? {})) continue;
      const prompt: PromptSpec = { text: step.user };
      if (step.workspaceContext) {
        prompt.context = workspaceContextText(
          step.workspaceContext.map((s) => ({
            source: s.source,
            label: s.label,
            body: s.file ? readFileSync(join(DEMO, 'workspace', s.file), 'utf8').trim() : (s.text ?? ''),
          })),
        );
      }
      for (const attachment of step.attachments ?? []) {
        if ('image' in attachment) (prompt.images ??= []).push(join('demo', 'attachments', attachment.image));
        else (prompt.attach ??= []).push(attachment.file);
      }
      start(prompt);
    } else if ('compaction' in step) {
      summary = step.summary;
      prompts.push({ text: '/compact' });
      start({ text: 'Carry on from the hypothesis.' });
    } else {
      const { reasoning, tools = [], text } = step.assistant;
      if (tools.length === 0 && !text) {
        carried = reasoning;
        continue;
      }
      const scripted: ScriptedStep = {
        ...(reasoning || carried ? { reasoning: [carried, reasoning].filter(Boolean).join('\n\n') } : {}),
        ...(text ? { text } : {}),
        ...(tools.length ? { tools: tools.map((t) => call('{root}', t)) } : {}),
      };
      carried = undefined;
      // A reply that ends the turn cannot be followed by more steps: the next tool call joins it.
      const previous = turn().steps[turn().steps.length - 1];
      if (previous && previous.text && !previous.tools && scripted.tools && !scripted.text) {
        previous.tools = scripted.tools;
      } else turn().steps.push(scripted);
      if (tools.some((t) => t.status === 'running')) prompts[prompts.length - 1]!.cancelOnTool = 'bash';
    }
  }
  return { prompts, turns, summary };
}

const withRoot = (turns: ScriptedTurn[], root: string): ScriptedTurn[] =>
  JSON.parse(JSON.stringify(turns).replaceAll('{root}', root)) as ScriptedTurn[];

function demoScenario(name: string, index: number, description: string): Scenario {
  const { prompts, turns, summary } = session(index);
  return {
    name,
    description,
    output: 'demo',
    workspace: 'demo',
    refuse: /^tiup\b/,
    prompts,
    script: (root) => ({
      turns: withRoot(turns, root),
      summary,
      title: conversation().sessions[index]!.title,
      fallback: 'Checked: the results are in the tool output above.',
    }),
  };
}

export const DEMO_SCENARIOS: Scenario[] = [
  demoScenario('demo-warmup', 0, 'The demo: a short warm-up session before the incident.'),
  demoScenario(
    'demo-incident',
    1,
    'The demo: the INC-4821 investigation, with a compaction, attachments and a cancelled command.',
  ),
];
