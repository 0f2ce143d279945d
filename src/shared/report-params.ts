/**
 * The report's request options as people type them (a query parameter, a CLI flag): one rule
 * each, for the API, the CLI and the web client. A bad value throws a ParamError naming it.
 */
import { ESTIMATORS, type EstimatorId } from './estimators';

export class ParamError extends Error {
  constructor(
    readonly code: 'invalid_items' | 'invalid_estimator' | 'invalid_page' | 'invalid_call',
    message: string,
  ) {
    super(message);
    this.name = 'ParamError';
  }
}

export const MAX_ITEMS = 10_000;

/** `N` (1–10000) or `all`; empty or absent keeps the default. */
export function parseItems(value: string | undefined): number | 'all' | undefined {
  if (value === undefined || value === '') return undefined;
  if (value === 'all') return 'all';
  if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > MAX_ITEMS) {
    throw new ParamError('invalid_items', `items must be a number from 1 to ${MAX_ITEMS} or "all", not "${value}"`);
  }
  return Number(value);
}

export function parseEstimator(value: string | undefined): EstimatorId | undefined {
  if (value === undefined || value === '') return undefined;
  if ((ESTIMATORS as readonly string[]).includes(value)) return value as EstimatorId;
  throw new ParamError('invalid_estimator', `estimator must be one of ${ESTIMATORS.join(', ')}, not "${value}"`);
}

/** A model call's number (1-based): the report as of that call; empty or absent means now. */
export function parseCall(value: string | undefined): number | undefined {
  if (value === undefined || value === '') return undefined;
  if (!/^\d{1,9}$/.test(value) || Number(value) < 1)
    throw new ParamError('invalid_call', `call must be a model call's number from 1, not "${value}"`);
  return Number(value);
}

/** A zero-based page number; empty or absent means the first page. */
export function parsePage(value: string | undefined): number | undefined {
  if (value === undefined || value === '') return undefined;
  if (!/^\d{1,9}$/.test(value))
    throw new ParamError('invalid_page', `page must be a whole number from 0, not "${value}"`);
  return Number(value);
}
