/**
 * The demo's story for Claude Code: the scripted model's script (demo/live-script.ts, written
 * with OpenCode's tools) with every tool call made into Claude Code's own — its names and its
 * inputs (`Read` takes `file_path`, `Skill` a `skill`, a todo an `activeForm`, a subagent a
 * `subagent_type` Claude Code has) — so the same turns run for real through Claude Code's tools.
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
  todowrite: ({ todos }) => ({
    name: 'TodoWrite',
    args: {
      todos: (Array.isArray(todos) ? (todos as Args[]) : []).map((todo) => ({
        content: todo.content,
        status: todo.status,
        activeForm: todo.content,
      })),
    },
  }),
  task: ({ description, prompt }) => ({
    name: 'Task',
    args: { description, prompt, subagent_type: 'general-purpose' },
  }),
  bash: ({ command, description }) => ({
    name: 'Bash',
    args: { command, description: description ?? 'Run a command' },
  }),
};

/** One OpenCode tool call as Claude Code's. */
export function claudeCodeCall(call: ScriptedToolCall): ScriptedToolCall {
  const translate = Object.hasOwn(TRANSLATE, call.name) ? TRANSLATE[call.name] : undefined;
  return translate ? translate(call.args) : call;
}

const step = (s: ScriptedStep): ScriptedStep => (s.tools ? { ...s, tools: s.tools.map(claudeCodeCall) } : s);

/** A script written with OpenCode's tools, speaking Claude Code's. */
export function claudeCodeScript(script: Script): Script {
  return { ...script, turns: script.turns.map((turn) => ({ ...turn, steps: turn.steps.map(step) })) };
}
