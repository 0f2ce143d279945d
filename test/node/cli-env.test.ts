/**
 * The CLI's environment without zod (issue 42.1, src/node/cli-env.ts): with none of its
 * variables set a command takes every field as unset, as the schema gives it, without loading
 * the schema; with one set, the schema reads them all; and the tokenizer threads' setting, read
 * without the schema, keeps the schema's rule and message.
 */
import { describe, expect, it } from 'vitest';
import { CLI_VARIABLES, EnvError, tokenizerThreadsSetting, unsetCliEnv } from '../../src/node/cli-env';
import { cliEnvSchema, cliFields, parseCliEnv, parseEnv } from '../../src/node/env-fields';

describe("the CLI's environment", () => {
  it('names exactly the variables of the schema', () => {
    expect([...CLI_VARIABLES].sort()).toEqual(Object.keys(cliFields).sort());
  });

  it('with none of them set (absent or blank): what the schema gives', () => {
    const unrelated = { PATH: '/usr/bin', PORT: 'not read by the CLI' };
    expect(unsetCliEnv(unrelated)).toStrictEqual(parseCliEnv(unrelated));
    const blank = { ...unrelated, INVESTIBOOK_DB: '', INVESTIBOOK_TOKENIZER_THREADS: '  ' };
    expect(unsetCliEnv(blank)).toEqual(parseCliEnv(blank));
  });

  it.each(CLI_VARIABLES)('with %s set: left to the schema', (name) => {
    expect(unsetCliEnv({ [name]: '1' })).toBeNull();
  });

  it('the schema reads them all, and refuses a bad value in one sentence', () => {
    const env = { INVESTIBOOK_DB: ' a.db', INVESTIBOOK_TOKENIZER_THREADS: ' 2 ', INVESTIBOOK_OPENCODE: ' oc ' };
    expect(parseCliEnv(env)).toMatchObject({ INVESTIBOOK_DB: ' a.db', INVESTIBOOK_TOKENIZER_THREADS: 2 });
    expect(() => parseCliEnv({ INVESTIBOOK_TOKENIZER_THREADS: '2x' })).toThrow(EnvError);
  });

  it.each(['0', ' 7 ', '', '   ', 'many', '-1', '1.5', '9007199254740993'])(
    'reads INVESTIBOOK_TOKENIZER_THREADS=%j as the schema does',
    (value) => {
      const env = { INVESTIBOOK_TOKENIZER_THREADS: value };
      let expected: number | undefined | Error;
      try {
        expected = parseEnv(env, cliEnvSchema).INVESTIBOOK_TOKENIZER_THREADS;
      } catch (error) {
        expected = error as Error;
      }
      if (expected instanceof Error) {
        expect(() => tokenizerThreadsSetting(env)).toThrow(EnvError);
        expect(() => tokenizerThreadsSetting(env)).toThrow(expected.message);
      } else expect(tokenizerThreadsSetting(env)).toBe(expected);
    },
  );
});
