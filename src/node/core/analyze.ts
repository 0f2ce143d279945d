/**
 * One persisted message, analysed once: parsed through the OpenCode format module, put through
 * OpenCode's request view, attributed to sources and estimated. What the calibration and the
 * report need is kept; the texts only when asked (content pages, the reader). Pure: the
 * estimator is injected.
 */
import { isPruned, parseInfo, parsePart, type Part } from '../../shared/opencode/format';
import { fmtBytes } from '../../shared/format';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../../shared/json-depth';
import { attributeMessage, utf8Bytes, type AttributionContext, type Contribution } from './attribute';
import type { Omissions } from './build-report';
import { emptyOmissions } from './build-report';
import type { Item } from './calibrate';
import { messageView, type StoredMessage } from './request-view';

export interface Estimator {
  readonly id: 'bpe' | 'chars4';
  /** Human name, reported as `estimate.method`. */
  readonly method: string;
  count(text: string): number;
  /** Texts above this length are estimated from samples (a warning says so). */
  readonly sampleLimit?: number;
}

export interface MessageAnalysis {
  /** The message as the history window and the call list need it (bookkeeping parts only). */
  skeleton: StoredMessage;
  items: Item[];
  /** Same order as `items`, only when texts were kept. */
  texts?: string[][];
  omissions: Omissions;
  mentions: string[];
  warnings: string[];
  estimator: Estimator['id'];
}

export interface AnalyzeOptions {
  attribution: AttributionContext;
  estimator: Estimator;
  targetModel: string | undefined;
  keepText?: boolean;
  /** The estimator is the cheap one used for history: items are marked `rough`. */
  rough?: boolean;
}

/** Stands for a part left out for its nesting (its bytes are not counted either). */
const DEEP = Symbol('too deep');

export function analyzeMessage(id: string, info: unknown, parts: unknown, options: AnalyzeOptions): MessageAnalysis {
  const warnings: string[] = [];
  const ref = `messages_v2/${id}`;
  // Nothing below may walk or re-serialise a hostile nesting (stack overflow): such values are
  // left out here, with a warning naming them.
  const tooDeep = `nests deeper than ${MAX_JSON_DEPTH} levels`;
  let boundedInfo = info;
  if (nestsDeeperThan(info)) {
    warnings.push(`${ref}: info ${tooDeep}; read as empty`);
    boundedInfo = {};
  }
  const parsedInfo = parseInfo(boundedInfo, (message) => warnings.push(`${ref}: ${message}`));
  if (!Array.isArray(parts)) warnings.push(`${ref}: parts is not a JSON array; skipped`);
  const rawParts = (Array.isArray(parts) ? parts : []).map((part: unknown, index) => {
    if (!nestsDeeperThan(part)) return part;
    warnings.push(`${ref}/parts/${index}: ${tooDeep}; skipped`);
    return DEEP;
  });
  const parsed: (Part | null)[] = rawParts.map((part, index) =>
    part === DEEP ? null : parsePart(part, (message) => warnings.push(`${ref}/parts/${index}: ${message}`)),
  );
  const message: StoredMessage = { id, info: parsedInfo, parts: parsed };
  const view = messageView(message, { targetModel: options.targetModel });
  const attributed = attributeMessage(
    message,
    view,
    options.rough ? { ...options.attribution, light: true } : options.attribution,
  );
  warnings.push(...attributed.warnings);

  const omissions = emptyOmissions();
  if (view.skipped === 'error') {
    omissions.failedReplies.count++;
    omissions.failedReplies.bytes += utf8Bytes(JSON.stringify(rawParts));
  }
  for (const omission of view.omitted) {
    const bytes = utf8Bytes(JSON.stringify(rawParts[omission.index] ?? null));
    const into =
      omission.kind === 'ignored-text'
        ? omissions.ignoredText
        : omission.kind === 'unsigned-reasoning'
          ? omissions.unsignedReasoning
          : omission.kind === 'file-read-at-prompt'
            ? null
            : omissions.bookkeeping;
    if (!into) continue;
    into.count++;
    into.bytes += omission.kind === 'ignored-text' || omission.kind === 'unsigned-reasoning' ? omission.bytes : bytes;
  }
  for (const part of view.sent) {
    if (part.kind === 'tool' && isPruned(part.tool) && part.tool.status === 'completed') {
      omissions.prunedOutputs.count++;
      omissions.prunedOutputs.bytes += utf8Bytes(part.tool.output ?? '');
    }
    if (part.kind === 'file') {
      const dataUrl = /^data:[^;,]*(;base64)?,/.exec(part.file.url);
      if (dataUrl) {
        omissions.attachmentBodies.count++;
        omissions.attachmentBodies.bytes += part.file.url.length - dataUrl[0].length;
      }
    }
  }

  const items = attributed.contributions.map((c) => {
    const item = toItem(c, options.estimator, warnings);
    return options.rough ? { ...item, rough: true } : item;
  });
  return {
    skeleton: {
      id,
      info: parsedInfo,
      parts: parsed.map((p) => (p?.type === 'compaction' || p?.type === 'step-finish' ? p : null)),
    },
    items,
    ...(options.keepText ? { texts: attributed.contributions.map((c) => c.texts) } : {}),
    omissions,
    mentions: attributed.mentions,
    warnings,
    estimator: options.estimator.id,
  };
}

/** Estimates a contribution; its texts are dropped unless asked for. */
export function toItem(contribution: Contribution, estimator: Estimator, warnings: string[]): Item {
  const { texts, ...rest } = contribution;
  let tokens = 0;
  for (const text of texts) {
    tokens += estimator.count(text);
    if (estimator.sampleLimit !== undefined && text.length > estimator.sampleLimit) {
      warnings.push(
        `${contribution.sourceRef}: ${fmtBytes(utf8Bytes(text))} of text; its tokens were estimated from samples`,
      );
    }
  }
  return { ...rest, tokens };
}
