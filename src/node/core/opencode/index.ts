/**
 * OpenCode (opencode-ai 1.18.33) as the report's agent runtime: its rows (messages_v2 info and
 * parts), its request view (request-view.ts), its model calls (calls.ts), what it loads into
 * every request (always-loaded.ts), its tools (tools.ts), its workspace layout (workspace.ts),
 * its window (window.ts) and what its configuration can turn off (advice.ts). See
 * core/runtime.ts for the seam.
 */
import { RUNTIME_NAME } from '../../../shared/opencode/runtime';
import { providerFamily } from '../providers';
import { OPENCODE_ADVICE } from './advice';
import type { AgentRuntime } from '../runtime';
import type { MessageMeta, SessionShape } from '../types';
import { workspaceContributions } from './always-loaded';
import { opencodeChatTranscript } from './chat-transcript';
import { analyzeMessage, messageHeader, type OpenCodeHeader } from './analyze';
import { recordedRoots } from './attribute';
import { modelCalls, promptOf } from './calls';
import { HistoryWindow, liveWindow, targetModel } from './request-view';
import { afterCompaction, afterRevert, earlierSummaries, preserveRecentTokens, pruneSelect } from './next-prompt';
import { OPENCODE_TEXT } from '../../../shared/opencode/format';
import { definitionChanges, opencodeRuntimeParts } from './runtime-parts';
import { contextWindow } from './window';
import { OPENCODE_LAYOUT } from './workspace';
import { OPENCODE_WORDS } from './words';

const RUNTIME_TEXT =
  "OpenCode's own system prompt, environment block and tool schemas. The server never sees this text: its size is what the provider counted for the first model call beyond everything the server can see, re-measured when a later call showed it changed.";

const skeletons = (headers: readonly { data: OpenCodeHeader }[]) => headers.map((h) => h.data);

export const opencodeRuntime: AgentRuntime<OpenCodeHeader> = {
  id: 'opencode@1.18.33',
  rows: RUNTIME_NAME,
  name: 'OpenCode',
  runtimeItem: { label: 'OpenCode system prompt and tool schemas, measured', text: RUNTIME_TEXT },
  layout: OPENCODE_LAYOUT,
  words: OPENCODE_WORDS,
  chatTranscript: opencodeChatTranscript,

  header: messageHeader,

  facts(headers) {
    const messages = skeletons(headers);
    const target = targetModel(messages);
    const [provider, ...model] = (target ?? '').split('/');
    return {
      targetModel: target,
      family: providerFamily(provider, model.join('/')),
      sessionRoots: [...new Set(messages.flatMap((m) => recordedRoots(m)))],
    };
  },

  liveWindow: (headers) => liveWindow(skeletons(headers)).order,

  session(headers, usage): SessionShape {
    const messages = skeletons(headers);
    const metas: MessageMeta[] = messages.map((m) => ({
      id: m.id,
      userTurn: m.info.role === 'user' && !m.parts.some((p) => p?.type === 'compaction'),
      lastActivity: m.info.time.completed ?? m.info.time.created ?? 0,
    }));
    return {
      messages: metas,
      calls: modelCalls(messages, usage?.contextUsed),
      window: () => new HistoryWindow(messages),
    };
  },

  latestCount(headers, usage) {
    const messages = skeletons(headers);
    for (let i = messages.length - 1; i >= 0; i--) {
      const { info, id } = messages[i]!;
      if (info.role !== 'assistant' || !info.tokens) continue;
      const { prompt, convention } = promptOf(info.tokens, usage?.contextUsed);
      if (prompt === 0 && info.tokens.output === 0) continue;
      return { messageId: id, tokens: info.tokens, convention, prompt };
    }
    return null;
  },

  nextPrompt(headers) {
    const messages = skeletons(headers);
    const ids = (order: readonly number[]) => order.map((i) => messages[i]!.id);
    const { order } = liveWindow(messages);
    return {
      messages: order.map((i) => ({ id: messages[i]!.id, role: messages[i]!.info.role })),
      afterCompaction(tokensOf, preserve) {
        const view = afterCompaction(messages, (i) => tokensOf(messages[i]!.id), preserve);
        return { kept: ids(view.order), ...(view.tailStartId ? { tailStartId: view.tailStartId } : {}) };
      },
      afterRevert(messageId) {
        const view = afterRevert(messages, messageId);
        return view && { kept: ids(view.order) };
      },
      summaries: earlierSummaries(messages),
      compactionRequestText: OPENCODE_TEXT.compactionRequest,
      preserveRecent: (usable) => preserveRecentTokens(usable),
      // The prune walks every stored message (not the view), in their order: the rows' id order.
      pruneSelect: (outputs, turnsAhead) => {
        const chosen = new Set(pruneSelect(messages, outputs, turnsAhead));
        return outputs.filter((o) => chosen.has(o));
      },
      prunedText: OPENCODE_TEXT.prunedOutput,
    };
  },

  analyze: (row, context) => analyzeMessage(row, { ...context, targetModel: context.facts.targetModel }),
  alwaysLoaded: workspaceContributions,
  window: contextWindow,
  runtimeParts: opencodeRuntimeParts,
  definitionChanges,
  advice: OPENCODE_ADVICE,
};
