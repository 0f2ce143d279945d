// Resets every zustand store after each test (zustand docs, "Testing"): no test leaks local
// messages into the next. Activated by vi.mock('zustand') in test/web/setup.ts.
import { act } from '@testing-library/react';
import type * as ZustandExportedTypes from 'zustand';
import { afterEach, vi } from 'vitest';

export * from 'zustand';

const { create: actualCreate } = await vi.importActual<typeof ZustandExportedTypes>('zustand');

export const storeResetFns = new Set<() => void>();

const createUncurried = <T>(stateCreator: ZustandExportedTypes.StateCreator<T>) => {
  const store = actualCreate(stateCreator);
  const initialState = store.getInitialState();
  storeResetFns.add(() => store.setState(initialState, true));
  return store;
};

export const create = (<T>(stateCreator: ZustandExportedTypes.StateCreator<T>) =>
  typeof stateCreator === 'function'
    ? createUncurried(stateCreator)
    : createUncurried) as typeof ZustandExportedTypes.create;

afterEach(() => {
  act(() => storeResetFns.forEach((reset) => reset()));
});
