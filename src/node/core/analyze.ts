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
import { ASSUMED_IMAGE, familyRules, type Encoding, type FamilyRules } from './providers';
import { messageView, type MessageView, type StoredMessage } from './request-view';

export interface Estimator {
  readonly id: 'bpe' | 'chars4';
  /** Which tokenizer exactly (`bpe:claude×1.1`): analyses made with another are not reused. */
  readonly key: string;
  /** The BPE table, for counting elsewhere (threads). */
  readonly encoding?: Encoding;
  readonly multiplier?: number;
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
  /**
   * How many times the provider is sent this message's hidden reasoning: OpenCode sends each
   * summary part of an OpenAI reasoning item as an item of its own, every one with the item's
   * whole encrypted content, so the provider counts the reasoning once a part (weighted by each
   * item's share when a message has several). Absent: once, or none to send.
   */
  reasoningCopies?: number;
  /** The estimator's key: an analysis is reused only with the same tokenizer. */
  estimator: Estimator['key'];
}

export interface AnalyzeOptions {
  attribution: AttributionContext;
  estimator: Estimator;
  targetModel: string | undefined;
  /** The provider family the session talks to: its vision rule prices images. */
  family?: FamilyRules;
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
          : omission.kind === 'unencrypted-reasoning'
            ? omissions.unencryptedReasoning
            : omission.kind === 'file-read-at-prompt'
              ? null
              : omissions.bookkeeping;
    if (!into) continue;
    into.count++;
    into.bytes += omission.kind === 'bookkeeping' || omission.kind === 'unknown' ? bytes : omission.bytes;
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
    const item = toItem(c, options.estimator, warnings, options.family);
    return options.rough ? { ...item, rough: true } : item;
  });
  const copies = encryptedReasoningCopies(view.sent);
  return {
    ...(copies > 1 ? { reasoningCopies: copies } : {}),
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
    estimator: options.estimator.key,
  };
}

/**
 * Estimates a contribution — its texts, and each image by the provider family's published rule
 * (`vision`, a size assumed where the image's own is not known); its texts are dropped unless asked
 * for. `produced` is the part the model wrote itself, for what a call produced out of sight.
 */
export function toItem(
  contribution: Contribution,
  estimator: Estimator,
  warnings: string[],
  family: FamilyRules = familyRules('other'),
): Item {
  const { texts, ...rest } = contribution;
  let tokens = 0;
  let produced = 0;
  texts.forEach((text, k) => {
    const count = estimator.count(text);
    tokens += count;
    if (k < (contribution.producedTexts ?? 0)) produced += count;
    if (estimator.sampleLimit !== undefined && text.length > estimator.sampleLimit) {
      warnings.push(
        `${contribution.sourceRef}: ${fmtBytes(utf8Bytes(text))} of text; its tokens were estimated from samples`,
      );
    }
  });
  const vision = visionTokens(contribution.images, family);
  return {
    ...rest,
    tokens: tokens + vision,
    ...(contribution.producedTexts ? { produced } : {}),
    ...(vision ? { vision } : {}),
  };
}

/** What images cost by a family's rule (PDFs are left to the measured growth). */
export function visionTokens(images: Contribution['images'], family: FamilyRules): number {
  let total = 0;
  for (const image of images ?? []) {
    if (!image.mime.startsWith('image/')) continue;
    total += family.imageTokens(image.width ?? ASSUMED_IMAGE.width, image.height ?? ASSUMED_IMAGE.height);
  }
  return total;
}

/**
 * The encrypted reasoning a message sends, in copies of its reasoning: each sent part counts its
 * item's whole encrypted content, an item weighing by the length of that content.
 */
function encryptedReasoningCopies(sent: MessageView['sent']): number {
  const lengths: number[] = [];
  const items = new Map<string, number>();
  for (const part of sent) {
    if (part.kind !== 'reasoning') continue;
    const content = encryptedContent(part.metadata);
    if (content === null) continue;
    lengths.push(content.length);
    items.set(content, content.length);
  }
  const whole = [...items.values()].reduce((a, b) => a + b, 0);
  return whole === 0 ? 0 : lengths.reduce((a, b) => a + b, 0) / whole;
}

function encryptedContent(metadata: Record<string, unknown> | undefined): string | null {
  for (const key of ['openai', 'azure']) {
    const value = (metadata?.[key] as { reasoningEncryptedContent?: unknown } | undefined)?.reasoningEncryptedContent;
    if (typeof value === 'string' && value !== '') return value;
  }
  return null;
}
