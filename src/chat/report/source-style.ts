/**
 * A source's colour reaches CSS as one custom property, set per element from the sources table
 * (React writes it through the CSSOM, which the CSP's `style-src 'self'` allows). The stylesheet
 * never lists sources, so an unknown source id gets the neutral colour and still renders.
 */
import type { CSSProperties } from 'react';

export const colorVar = (color: string, extra?: CSSProperties): CSSProperties =>
  ({ ...extra, '--source-color': color }) as CSSProperties;

/** A percentage of `whole` as a CSS length. */
export const pctOf = (part: number, whole: number): string =>
  `${whole > 0 ? Math.max(0, Math.min(100, (part / whole) * 100)) : 0}%`;
