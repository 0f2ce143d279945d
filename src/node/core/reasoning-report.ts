/**
 * What the report says of reasoning (`calibration.reasoning` and its note): the policy the walk
 * applied, the provider's documented rule it was walked under, and how the session's counts
 * stood to that rule — confirmed, contradicted (the rule kept, said in words), overturned (the
 * counts overwhelming), untested, or no rule (the counts decided). Pure.
 */
import type { CalibrationSummary } from '../../shared/wire';
import { REASONING_AT_STAKE } from './calibration-account';
import { OVERWHELMING_VOTES } from './reasoning-policy';
import type { Calibration, PolicyQuestion, ReasoningPolicy } from './types';

type Reasoning = NonNullable<CalibrationSummary['reasoning']>;

/** Each question by its name on the wire. */
const WIRE: Record<PolicyQuestion, 'keepsHidden' | 'dropsHiddenAtTurn' | 'receivesVisible' | 'visibleCurrentTurnOnly'> =
  {
    hidden: 'keepsHidden',
    turn: 'dropsHiddenAtTurn',
    reasoning: 'receivesVisible',
    reasoningTurn: 'visibleCurrentTurnOnly',
  };
const WIRE_OF_FIELD: Record<keyof ReasoningPolicy, string> = {
  keepsHidden: 'keepsHidden',
  dropsAtTurn: 'dropsHiddenAtTurn',
  receives: 'receivesVisible',
  reasoningTurnOnly: 'visibleCurrentTurnOnly',
  keepsToolTurns: 'keepsToolTurns',
};
/** Each question in words, as the rule answers it. */
const ASKED: Record<PolicyQuestion, string> = {
  hidden: 'whether hidden reasoning stays in the next prompt',
  turn: 'whether it is dropped at a new user message',
  reasoning: 'whether the visible reasoning sent back is counted',
  reasoningTurn: "whether earlier turns' visible reasoning is dropped at a new user message",
};

export function reasoningOf(calibration: Calibration): Reasoning {
  const { policy, asks, rule: judgement } = calibration;
  const { rule, votes, overturned, contradicted } = judgement;
  const answers = Object.fromEntries(
    Object.entries(rule.answers).map(([field, value]) => [WIRE_OF_FIELD[field as keyof ReasoningPolicy], value]),
  );
  const against = votes.filter((v) => v.favours === 'other');
  return {
    keepsHidden: asks.hidden ? policy.keepsHidden : null,
    dropsHiddenAtTurn: asks.turn ? policy.dropsAtTurn : null,
    receivesVisible: asks.reasoning ? policy.receives : null,
    visibleCurrentTurnOnly: asks.reasoningTurn ? policy.reasoningTurnOnly : null,
    rule: {
      id: rule.id,
      provider: rule.provider,
      says: rule.says,
      model: judgement.model,
      answers,
      ...(rule.source ? { source: rule.source } : {}),
      otherModels: judgement.others,
    },
    verdict: verdictOf(calibration),
    said: ruleNote(calibration),
    evidence: {
      confirming: votes.filter((v) => v.favours === 'rule').length,
      contradicting: against.length,
      stakeAtLeast: REASONING_AT_STAKE,
      overturned: overturned.map((q) => WIRE[q]),
      contradicted: contradicted.map((q) => WIRE[q]),
      calls: against.slice(0, 20).map((v) => ({
        call: v.call,
        question: WIRE[v.question],
        stake: v.stake,
        ruleResidual: v.ruleResidual,
        otherResidual: v.otherResidual,
      })),
    },
  };
}

function verdictOf({ rule: judgement }: Calibration): string {
  if (Object.keys(judgement.rule.answers).length === 0) return 'no_rule';
  if (judgement.overturned.length > 0) return 'overturned';
  if (judgement.contradicted.length > 0) return 'contradicted';
  return judgement.votes.some((v) => v.favours === 'rule') ? 'confirmed' : 'untested';
}

const callList = (calls: readonly number[]) => {
  const unique = [...new Set(calls)];
  const shown = unique.slice(0, 8).map((c) => `#${c}`);
  return unique.length > 8 ? `${shown.join(', ')} and ${unique.length - 8} more` : shown.join(', ');
};

/** The rule and the verdict in words: whose rule, what it says, its source, what the counts showed of it. */
export function ruleNote(calibration: Calibration): string {
  const { rule, model, others, votes, overturned, contradicted } = calibration.rule;
  const of = model ? ` (${model})` : '';
  const source = rule.source ? ` (${rule.source.url})` : '';
  const also = others.length
    ? ` The session's other models (${others.join(', ')}) have another rule; this one applied.`
    : '';
  if (Object.keys(rule.answers).length === 0)
    return `Reasoning: what ${rule.provider}${of} keeps of earlier reasoning — ${rule.says}.${also}`;
  const head = `Reasoning, by the provider's rule — ${rule.provider}${of}: ${rule.says}${source}.`;
  const forRule = votes.filter((v) => v.favours === 'rule').length;
  const parts: string[] = [];
  for (const question of overturned) {
    const calls = votes.filter((v) => v.question === question && v.favours === 'other').map((v) => v.call);
    parts.push(
      `The counts overturn it on ${ASKED[question]}: ${calls.length} calls (${callList(calls)}) with at least ${REASONING_AT_STAKE} tokens of reasoning at stake favour the other answer by more than half of it, and none favours the rule — the report follows the counts there.`,
    );
  }
  for (const question of contradicted) {
    const calls = votes.filter((v) => v.question === question && v.favours === 'other').map((v) => v.call);
    const needed = `${OVERWHELMING_VOTES} such calls and none for the rule would overturn it`;
    parts.push(
      `The counts contradict it on ${ASKED[question]} at ${calls.length === 1 ? 'call' : 'calls'} ${callList(calls)} — not overwhelmingly (${needed}), so the rule is kept, and what it does not explain is never booked as reasoning.`,
    );
  }
  if (parts.length === 0)
    parts.push(
      forRule > 0
        ? `This session's counts confirm it at ${forRule} call${forRule === 1 ? '' : 's'} and contradict it at none.`
        : `No call of this session had ${REASONING_AT_STAKE} tokens of reasoning at stake to test it.`,
    );
  return `${head} ${parts.join(' ')}${also}`;
}
