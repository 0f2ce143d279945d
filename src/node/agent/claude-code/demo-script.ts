/**
 * The demo's story for Claude Code: the scripted model's script (demo/live-script.ts, written
 * with OpenCode's tools) with every tool call made into one the pinned Claude Code really offers —
 * its names and its inputs (`Read` takes `file_path`, `Skill` a `skill`, a subagent an `Agent`
 * call with a `subagent_type` Claude Code has) — so the same turns run for real through Claude
 * Code's tools. Its todo tools are deferred (their schemas load through `ToolSearch`), so a todo
 * step becomes two: the search that loads `TaskCreate`, then one `TaskCreate` per todo. `Grep`,
 * `Glob` and the todo tools exist only because the write side opts into them (write-side.ts).
 * A tool Claude Code has no equivalent of is left as it is (the model would call an unknown tool).
 */
import type { Script, ScriptedStep, ScriptedToolCall } from '../../scripted-model/script';

type Args = Record<string, unknown>;

const TRANSLATE: Readonly<Record<string, (args: Args) => ScriptedToolCall>> = {
  read: ({ filePath, ...rest }) => ({ name: 'Read', args: { file_path: filePath, ...rest } }),
  // Claude Code's Grep lists matching files by default; OpenCode's shows the lines.
  grep: ({ include, ...rest }) => ({
    name: 'Grep',
    args: { ...rest, ...(include ? { glob: include } : {}), output_mode: 'content', '-n': true },
  }),
  glob: (args) => ({ name: 'Glob', args }),
  skill: ({ name }) => ({ name: 'Skill', args: { skill: name } }),
  // Claude Code's subagent tool; `general-purpose` is its own fresh agent (OpenCode's `general`).
  task: ({ description, prompt }) => ({
    name: 'Agent',
    args: { description, prompt, subagent_type: 'general-purpose', run_in_background: false },
  }),
  bash: ({ command, description }) => ({
    name: 'Bash',
    args: { command, description: description ?? 'Run a command' },
  }),
};

/** The deferred tool a step's OpenCode `todowrite` needs loaded first. */
export const TODO_TOOL = 'TaskCreate';

/** One OpenCode tool call as Claude Code's (a todo list: one `TaskCreate` per todo). */
export function claudeCodeCalls(call: ScriptedToolCall): ScriptedToolCall[] {
  if (call.name === 'todowrite') return todoCalls(call.args);
  const translate = Object.hasOwn(TRANSLATE, call.name) ? TRANSLATE[call.name] : undefined;
  return [translate ? translate(call.args) : call];
}

function todoCalls({ todos }: Args): ScriptedToolCall[] {
  return (Array.isArray(todos) ? (todos as Args[]) : []).map((todo) => ({
    name: TODO_TOOL,
    args: { subject: todo.content, description: todo.content, activeForm: todo.content },
  }));
}

/** A step in Claude Code's tools; a todo step is preceded by the `ToolSearch` that loads the todo tool. */
function steps(s: ScriptedStep): ScriptedStep[] {
  if (!s.tools) return [s];
  const translated = { ...s, tools: s.tools.flatMap(claudeCodeCalls) };
  if (!s.tools.some((t) => t.name === 'todowrite')) return [translated];
  const load: ScriptedStep = {
    ...(s.reasoning ? { reasoning: s.reasoning } : {}),
    tools: [{ name: 'ToolSearch', args: { query: `select:${TODO_TOOL}`, max_results: 1 } }],
  };
  const { reasoning: _said, ...rest } = translated;
  return [load, rest];
}

/** A script written with OpenCode's tools, speaking Claude Code's. */
export function claudeCodeScript(script: Script): Script {
  return { ...script, turns: script.turns.map((turn) => ({ ...turn, steps: turn.steps.flatMap(steps) })) };
}
