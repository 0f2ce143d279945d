/**
 * When the runtime's own pruning will clear old tool outputs by itself (contract §7): OpenCode,
 * with `compaction.prune` on, prunes as each turn ends — outside the latest two user turns and
 * beyond the newest 40,000 tokens of tool outputs, when more than 20,000 would go
 * (opencode/next-prompt.ts `pruneSelect`). The note says which outputs, how many tokens and when:
 * pruned as the turn just ended (the next call no longer carries them: `frees`), or as the next
 * turn ends (every call after it: `avoids`, per call; the next call still carries them). With
 * pruning off, the same forecast is what turning it on would do. Pure.
 */
import { fmt } from '../../shared/format';
import { chars4Estimator } from './estimate';
import { itemId, sum } from './figures';
import type { Counted, PruneCandidate, ReportInput, SuggestionDraft } from './types';

/** The completed tool outputs in view, by message and part, with the runtime's measure of each. */
export function pruneCandidates(counted: readonly Counted[]): PruneCandidate[] {
  return counted.flatMap(({ item }) => {
    // The key names the form: `…/parts/N#pruned` once OpenCode cleared it (opencode/attribute.ts).
    const at = /^messages_v2\/.+?\/parts\/(\d+)(#pruned)?$/.exec(item.key);
    if (!item.tool || !item.messageId || !at) return [];
    // OpenCode's own measure, characters ÷ 4, of the output alone: the item's bytes in the share
    // of its estimate the model did not write itself (its call's input).
    const share = item.tokens > 0 ? Math.max(0, item.tokens - (item.produced ?? 0)) / item.tokens : 0;
    const tokens = Math.round((item.bytes * share) / 4);
    return [
      { messageId: item.messageId, part: Number(at[1]), tool: item.tool, tokens, pruned: !!at[2], key: item.key },
    ];
  });
}

export function pruneForecast(input: ReportInput, counted: readonly Counted[]): SuggestionDraft[] {
  const next = input.next;
  if (!next?.pruneSelect || input.asOf) return [];
  const candidates = pruneCandidates(counted);
  // On where the workspace's configuration says so, or where the session shows it pruned (a
  // user's own configuration may turn it on where the report cannot read it).
  const on = input.workspace.agentConfig?.compactionPrune === true || input.omissions.prunedOutputs.count > 0;
  const now = on ? next.pruneSelect(candidates, 0) : [];
  const later = now.length > 0 ? now : next.pruneSelect(candidates, 1);
  if (later.length === 0) return [];
  const scaled = new Map(counted.map((c) => [c.item.key, c]));
  const placeholder = chars4Estimator.count(next.prunedText ?? '');
  // What the next prompt loses per output: its figure in the total less its call's input, less the placeholder.
  const loses = (o: PruneCandidate) => {
    const { item, scaled: figure } = scaled.get(o.key)!;
    const whole = figure ?? item.tokens;
    const output = item.tokens > 0 ? whole * (1 - (item.produced ?? 0) / item.tokens) : 0;
    return Math.max(0, Math.round(output) - placeholder);
  };
  const tokens = sum(later.map(loses));
  const name = input.runtime.name;
  const labels = later.map((o) => scaled.get(o.key)!.item.label);
  const which = `${labels.slice(0, 4).join(', ')}${labels.length > 4 ? ` and ${fmt(labels.length - 4)} more` : ''}`;
  const rule = `${name} prunes as a turn ends: outside the latest two user turns, it keeps the newest ${fmt(40_000)} tokens of tool outputs whole (a skill's always) and clears older ones to a placeholder when more than ${fmt(20_000)} tokens would go (its own measure, characters ÷ 4: estimated here).`;
  const n = later.length;
  const outputs = `${fmt(n)} old tool output${n === 1 ? '' : 's'}`;
  const base = {
    kind: 'prune_forecast' as const,
    severity: 'info' as const,
    itemIds: later.map((o) => itemId(scaled.get(o.key)!.item.sourceRef)),
    figures: { outputs: n, tokens },
  };
  if (now.length > 0)
    return [
      {
        ...base,
        title: `${name} is pruning ${outputs} (${fmt(tokens)} tokens) as the last turn ended`,
        detail: `${which}: the next call carries a placeholder for each instead. ${rule}`,
        tokens,
        estimate: true,
      },
    ];
  if (on)
    return [
      {
        ...base,
        title: `${name}'s pruning will clear ${outputs} (${fmt(tokens)} tokens) when the next turn ends`,
        detail: `${which}: the next turn's calls still carry them; every call after it carries a placeholder instead. Nothing to do. ${rule}`,
        tokens: 0,
        avoids: { tokens, per: 'call' },
      },
    ];
  const advice = input.runtime.advice;
  return [
    {
      ...base,
      title: `With ${name}'s pruning on, ${outputs} (${fmt(tokens)} tokens) would be cleared when the next turn ends`,
      detail: `${which}. ${name} 1.18.33 prunes only when its configuration turns it on (compaction.prune), and here it is off, so nothing leaves by itself before a compaction. Turned on${advice ? ` in ${advice.configFile}` : ''}, from the agent's next start, the next turn's calls still carry them and every call after it a placeholder instead; an output cleared is gone for the agent (it re-runs the tool if it needs it again). ${rule}`,
      tokens: 0,
      avoids: { tokens, per: 'call' },
      horizon: 'configuration',
      ...(advice ? { change: { kind: 'opencode_config', text: PRUNE_ON, file: advice.configPath } } : {}),
    },
  ];
}

/** The configuration fragment that turns OpenCode's pruning on. */
const PRUNE_ON = JSON.stringify({ $schema: 'https://opencode.ai/config.json', compaction: { prune: true } }, null, 2);
