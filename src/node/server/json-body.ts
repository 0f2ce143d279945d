/** A request's JSON body, validated by its wire schema: one rule for every route that takes one. */
import type { Context } from 'hono';
import type { z } from 'zod/mini';
import { AppError } from '../errors';

export async function jsonBody<S extends z.ZodMiniType>(c: Context, schema: S): Promise<z.infer<S>> {
  let json: unknown;
  try {
    json = await c.req.json();
  } catch {
    throw new AppError('invalid', 'invalid_json', 'Request body is not valid JSON');
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new AppError('invalid', 'invalid_body', `${issue?.path.join('.') || 'body'}: ${issue?.message ?? 'invalid'}`);
  }
  return parsed.data;
}
