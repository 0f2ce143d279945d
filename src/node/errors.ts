/**
 * Typed errors thrown below the edges. The HTTP error handler and the CLI's main are the only
 * places that turn them into statuses and exit codes (see `httpStatus` and the CLI's `run`).
 */
import { ParamError } from '../shared/report-params';
import { CallUnavailable } from './core/errors';
import { EnvError } from './cli-env';
import { StoreOpenError, StoreUnavailable, StoreValueError } from './storage/store';

export type ErrorKind =
  | 'usage'
  | 'not_found'
  | 'unauthorized'
  | 'forbidden'
  | 'invalid'
  | 'method'
  | 'too_large'
  | 'unsupported'
  | 'misdirected'
  | 'conflict'
  | 'gone'
  | 'unavailable'
  | 'insufficient_storage'
  | 'failed';

export class AppError extends Error {
  /** For `method`: the methods the resource answers (the Allow header). */
  readonly allow?: string;
  /** For `unavailable`: seconds until a retry may succeed (the Retry-After header; 1 by default). */
  readonly retryAfter?: number;

  constructor(
    readonly kind: ErrorKind,
    readonly code: string,
    message: string,
    options?: { cause?: unknown; allow?: string; retryAfter?: number },
  ) {
    super(message, options);
    this.name = 'AppError';
    if (options?.allow) this.allow = options.allow;
    if (options?.retryAfter) this.retryAfter = options.retryAfter;
  }
}

export const methodNotAllowed = (allow: string, message = `Use ${allow}`): AppError =>
  new AppError('method', 'method_not_allowed', message, { allow });

export const notFound = (code: string, message: string): AppError => new AppError('not_found', code, message);

export const usageError = (message: string): AppError => new AppError('usage', 'usage', message);

export const failed = (code: string, message: string, cause?: unknown): AppError =>
  new AppError('failed', code, message, { cause });

export const HTTP_STATUS: Record<
  ErrorKind,
  400 | 401 | 403 | 404 | 405 | 409 | 410 | 413 | 415 | 421 | 500 | 503 | 507
> = {
  usage: 400,
  invalid: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  method: 405,
  conflict: 409,
  gone: 410,
  too_large: 413,
  unsupported: 415,
  misdirected: 421,
  unavailable: 503,
  insufficient_storage: 507,
  failed: 500,
};

/** Errors from the layers below, as application errors (unknown errors stay as they are). */
export function asAppError(error: unknown): AppError | null {
  if (error instanceof AppError) return error;
  if (error instanceof EnvError) return new AppError('usage', 'bad_environment', error.message, { cause: error });
  if (error instanceof ParamError) return new AppError('invalid', error.code, error.message, { cause: error });
  if (error instanceof StoreUnavailable)
    return new AppError(
      error.code === 'disk_full' ? 'insufficient_storage' : 'unavailable',
      error.code,
      error.message,
      {
        cause: error,
      },
    );
  if (error instanceof CallUnavailable) return new AppError('invalid', error.code, error.message, { cause: error });
  if (error instanceof StoreOpenError) return new AppError('failed', error.code, error.message, { cause: error });
  // Text no database can hold alike (a NUL byte): refused in words, nothing stored.
  if (error instanceof StoreValueError) return new AppError('invalid', error.code, error.message, { cause: error });
  return null;
}
