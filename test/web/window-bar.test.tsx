/**
 * The window bar without a window size: only a session an agent runs here waits for the agent's
 * usage; an imported one (its report names where it came from) says no catalog knows its model,
 * and never mentions an agent reporting (issue 38, point 6).
 */
import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { buildReportModel } from '../../src/chat/report/report-model';
import { WindowBar } from '../../src/chat/report/window-bar';
import { contextReportSchema, type ContextReport } from '../../src/shared/wire';
import { fixtures } from './msw/handlers';

const demo = contextReportSchema.parse(fixtures.report);

/** The demo's report without a window size, as its session's runtime left it. */
function windowless(extra: Partial<ContextReport>): ContextReport {
  return {
    ...demo,
    window: null,
    actual: demo.actual && { ...demo.actual, contextSize: null, percent: null },
    ...extra,
  };
}

const bar = (report: ContextReport) => {
  render(<WindowBar model={buildReportModel(report)} onFocus={() => {}} />);
  return screen.getByRole('figure');
};

describe('WindowBar without a window size', () => {
  it('waits for the agent in a session an agent runs here', () => {
    expect(bar(windowless({}))).toHaveTextContent('no window size until the agent reports usage');
  });

  it('names no agent for an imported session, by its origin', () => {
    const figure = bar(
      windowless({
        origin: { kind: 'opencode_export', files: ['ses_4f2a.json'] },
        actual: demo.actual && { ...demo.actual, contextSize: null, percent: null, source: 'provider' },
      }),
    );
    expect(figure).toHaveTextContent('no window size: no catalog knows this model');
    expect(figure).not.toHaveTextContent(/until the agent|agent reports/);
  });

  it('names no agent for an imported session whose calls measured nothing', () => {
    const figure = bar(windowless({ origin: { kind: 'opencode_export' }, actual: null }));
    expect(figure.textContent).not.toMatch(/until the agent|agent reports/);
  });
});
