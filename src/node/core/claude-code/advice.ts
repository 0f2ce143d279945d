/**
 * What Claude Code's own configuration can turn off, in its terms, each checked against the
 * pinned Claude Code (2.1.318, through claude-agent-acp 0.101.0) on the scripted model
 * (docs/claude-code.md, "Advice"):
 *
 * - a tool: `permissions.deny: ["TOOL"]` in the workspace's `.claude/settings.json`. A tool
 *   denied by its bare name is left out of every request (measured: the request's `tools` lose
 *   it). Claude Code's deny rules hold for every agent, subagents included. Two are kept:
 *   `ToolSearch` (denied, Claude Code sends every deferred tool's schema instead: the prompt
 *   grows) and `DeferredToolPlaceholder` (sent whatever the settings say). MCP tools go by the
 *   names the model is sent (`mcp__SERVER__TOOL`); a server none of whose tools was called is
 *   denied whole (`mcp__SERVER`); investibook's own report tool is never suggested off.
 * - a skill: `disable-model-invocation: true` in the front matter of its SKILL.md: Claude Code
 *   drops it from the skill listing it sends (measured) and no longer loads it unasked. A deny
 *   rule `Skill(NAME)` would not: the listing keeps it (measured).
 * - a read's lines: Claude Code's `Read` shows a file as `N<TAB>text` lines (`cat -n`), without
 *   the file's length; the last line shown stands for it.
 */
import type { ConfigChange, FileLine, RuntimeAdvice } from '../types';

/** Kept on whatever went unused, and why. */
const KEEP: Readonly<Record<string, string>> = {
  ToolSearch: "denied, Claude Code sends every deferred tool's schema instead, and the prompt grows",
  DeferredToolPlaceholder: 'Claude Code sends it whatever its settings say',
  mcp__investibook__context_report: 'it is how the agent reads this report',
};

const deny = (rules: string[]) => JSON.stringify({ permissions: { deny: rules } });

export const CLAUDE_CODE_ADVICE: RuntimeAdvice = {
  configFile:
    "the workspace's .claude/settings.json (merged into its permissions.deny; Claude Code reads it when a session starts)",
  configPath: '.claude/settings.json',

  unusedTools({ tools, mcp }): ConfigChange {
    const kept: ConfigChange['kept'] = [];
    const rules: string[] = [];
    const removed: string[] = [];
    for (const tool of tools) {
      const why = Object.hasOwn(KEEP, tool) ? KEEP[tool] : undefined;
      if (why) kept.push({ tool, why });
      else {
        rules.push(tool);
        removed.push(tool);
      }
    }
    const servers: string[] = [];
    for (const server of mcp) {
      if (server.whole) {
        servers.push(server.server);
        rules.push(`mcp__${server.server}`);
        removed.push(...server.tools);
      } else
        for (const tool of server.tools) {
          rules.push(`mcp__${server.server}__${tool}`);
          removed.push(tool);
        }
    }
    return { text: rules.length ? deny(rules) : '{}', tools: removed, servers, kept };
  },

  unusedSkill({ skill }): ConfigChange {
    return {
      // A line of the skill's front matter, not of the settings.
      text: 'disable-model-invocation: true',
      file: `.claude/skills/${skill}/SKILL.md`,
      tools: [],
      servers: [],
      kept: [],
    };
  },

  // Claude Code's own commands for the history changes (2.1.318: /compact, /clear, /rewind).
  byHand: {
    notLive: ['compact', 'revert'],
    own: {
      compact:
        "Not made from here (Claude Code's summary is estimated, not proven): in Claude Code, open this session and type /compact.",
      new_session: 'No live agent here: in Claude Code, type /clear and send the hand-off as the first message.',
      revert:
        'Not made from here: in Claude Code, open this session and type /rewind (or press Esc twice), then pick the message to go back to before.',
    },
  },

  fileLines(text: string): { lines: FileLine[]; total: number } | null {
    const lines: FileLine[] = [];
    for (const line of text.split('\n')) {
      const match = /^\s*(\d+)(?:\t|→)(.*)$/.exec(line);
      if (match) lines.push({ n: Number(match[1]), text: match[2]! });
      else if (lines.length > 0) break;
    }
    return lines.length === 0 ? null : { lines, total: lines.at(-1)!.n };
  },
};
