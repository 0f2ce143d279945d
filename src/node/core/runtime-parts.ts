/**
 * The measured runtime item in parts: the runtime adapter estimates each part from the
 * definitions recorded where the agent ran (its system prompt, environment, each tool's schema,
 * each MCP server's tools); the provider's count of the whole is shared among them by those
 * estimates, so the parts add up to the measured item exactly. Where the estimates explain less
 * than was measured, each part keeps its estimate and the rest is a part of its own — framing,
 * and whatever the definitions do not show; where they explain more, all shrink alike. Pure.
 */
import { apportion } from './apportion';
import type { RuntimePart, RuntimePartsEstimate, RuntimeSplit } from './types';

// What the recorded definitions do not itemise: how the request wraps its messages and tools, and the rest.
export const FRAMING_LABEL = 'Message framing and other text not itemised';

export function splitRuntime(
  measured: number,
  estimate: RuntimePartsEstimate,
  called: ReadonlySet<string>,
  call: { agent: string | null; model: string | null },
): RuntimeSplit {
  if ('reason' in estimate) return { reason: estimate.reason };
  if (estimate.parts.length === 0)
    return { reason: 'the recorded definitions name no part of the runtime prompt (no tools, no environment)' };
  const estimates = estimate.parts.map((p) => p.estimate);
  const estimated = estimates.reduce((a, b) => a + b, 0);
  const shared = Math.max(0, Math.min(measured, estimated));
  const shares = apportion(shared, estimates);
  const parts: RuntimePart[] = estimate.parts.map(({ tools, ...part }, k) => ({
    ...part,
    tokens: shares[k]!,
    ...(part.kind === 'tool' && part.name !== undefined ? { called: called.has(part.name) } : {}),
    ...(tools ? { tools: tools.map((t) => ({ ...t, called: called.has(t.name) })) } : {}),
  }));
  // Tools and servers by size, after the prompt and the environment, as the request reads.
  const order = (p: RuntimePart) => (p.kind === 'tool' ? 2 : p.kind === 'mcp_server' ? 3 : 1);
  parts.sort((a, b) => order(a) - order(b) || (order(a) === 1 ? 0 : b.tokens - a.tokens));
  const rest = measured - shared;
  if (rest > 0) parts.push({ kind: 'framing', label: FRAMING_LABEL, estimate: 0, tokens: rest });
  return {
    parts,
    estimated,
    measured,
    recordedAt: estimate.recordedAt,
    agent: call.agent,
    model: call.model,
    notes: estimate.notes,
    ...(estimate.measuredWith ? { measuredWith: estimate.measuredWith } : {}),
  };
}
