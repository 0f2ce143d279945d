/**
 * Estimates of contributions: their texts counted by the injected estimator, their images by the
 * provider family's published rule. The texts are dropped (the report keeps none). Pure.
 */
import { fmtBytes } from '../../shared/format';
import { ASSUMED_IMAGE, familyRules, type FamilyRules } from './providers';
import { utf8Bytes } from './text';
import type { Contribution, Estimator, Item } from './types';

/** chars/4: the cheap, model-free estimate (history, and the `chars4` option). */
export const chars4Estimator: Estimator = {
  id: 'chars4',
  key: 'chars4',
  method: 'chars/4',
  count(text) {
    return Math.ceil(text.length / 4);
  },
};

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
