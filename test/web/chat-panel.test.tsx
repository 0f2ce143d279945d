/** The workspace chat with Testing Library and MSW: history, sending, local-only commands. */
import { screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { describe, expect, it, vi } from 'vitest';
import * as messagesApi from '../../src/api/messages';
import { fixtures } from './msw/handlers';
import { requests, server } from './msw/server';
import { composer, expectNothingStored, renderApp, waitForHistory } from './render';

vi.mock('../../src/api/messages', async (importOriginal) => {
  const actual = await importOriginal<typeof messagesApi>();
  return { ...actual, appendMessagesToAPI: vi.fn(actual.appendMessagesToAPI) };
});

const loadRequests = () =>
  requests.filter((r) => r.method !== 'GET' || !/\/(messages|usage|agent)(\?|$)|\/workspace\/demo$/.test(r.path));

describe('ChatPanel', () => {
  it('renders the persisted history legibly', async () => {
    const { user: userEvent } = renderApp();
    await waitForHistory();
    expect(screen.getByRole('heading', { level: 1 })).toHaveTextContent('INC-4821');
    expect(
      within(screen.getByRole('region', { name: 'Messages' })).getByText(/INC-4821 just paged/),
    ).toBeInTheDocument();
    // Visible reasoning is collapsed.
    const reasoning = screen.getAllByText('Reasoning')[0]!.closest('details')!;
    expect(reasoning).not.toHaveAttribute('open');
    // Tool calls are compact rows: OpenCode's tool name, what it did, its outcome — paths
    // relative to the workspace, a refusal in words, a stopped reply marked.
    const skill = screen.getAllByText('tidb-clinic-diagnosis')[0]!.closest('.tool-row')!;
    expect(skill).toHaveTextContent(/^skilltidb-clinic-diagnosisdone$/);
    expect(screen.getAllByText('evidence/evidence_summary_for_agent.txt').length).toBeGreaterThan(0);
    expect(screen.getByRole('main')).not.toHaveTextContent(fixtures.workspace.root!.slice(1));
    expect(
      screen.getByText(/^Refused by the server’s policy: tiup ctl:v7\.5\.1 pd -u http:\/\/pd-0/),
    ).toBeInTheDocument();
    expect(screen.getAllByText('Stopped by you').length).toBeGreaterThan(0);
    // A saved row opens to its input and output, as a live one does.
    const read = screen.getAllByText('evidence/evidence_summary_for_agent.txt')[0]!;
    await userEvent.click(read);
    const details = read.closest('details')!;
    expect(details).toHaveAttribute('open');
    expect(within(details).getByText('Output')).toBeInTheDocument();
    // Attachments are chips; the compaction summary is marked as such.
    expect(screen.getByText('grafana-tikv-cpu.png')).toBeInTheDocument();
    expect(screen.getByText(/Workspace context · 5 sections/)).toBeInTheDocument();
    expect(screen.getByRole('article', { name: 'Compaction summary' })).toBeInTheDocument();
    expect(screen.getByRole('separator')).toHaveTextContent(/Conversation compacted on request/);
  });

  it('shows the context meter from the usage API, and a clear state without usage', async () => {
    renderApp();
    const used = fixtures.usage.latest!.contextUsed.toLocaleString('en-US');
    expect(await screen.findByText(new RegExp(`Context ${used} / 200,000`))).toBeInTheDocument();
    expect(screen.getAllByRole('meter', { name: 'Context window used' })[0]).toHaveAttribute('value');
  });

  it('says when no usage has been reported yet', async () => {
    server.use(http.get('/api/workspace/demo/usage', () => HttpResponse.json({ sessionId: null, latest: null })));
    renderApp();
    expect(await screen.findByText('Context: no usage reported yet')).toBeInTheDocument();
  });

  it('says where an imported session came from (its file named), that no live agent has it, and where its total came from', async () => {
    const importedAt = Date.parse('2026-11-29T08:00:00Z');
    const origin = {
      kind: 'opencode_export',
      importedAt,
      updatedAt: importedAt,
      title: 'TUI session',
      parentSessionId: null,
      file: 'exports/ses_4f2a.json',
    };
    server.use(
      http.get('/api/workspace/demo', () =>
        HttpResponse.json({
          ...fixtures.workspace,
          sessions: fixtures.workspace.sessions.map((s) =>
            s.id === fixtures.workspace.defaultSessionId ? { ...s, origin } : s,
          ),
        }),
      ),
      http.get('/api/workspace/demo/usage', () =>
        HttpResponse.json({
          sessionId: fixtures.workspace.defaultSessionId,
          latest: {
            contextUsed: 36845,
            contextSize: null,
            percent: null,
            recordedAt: '2026-11-28T02:29:16.000Z',
            source: 'provider',
          },
        }),
      ),
    );
    const { user } = renderApp();
    await waitForHistory();
    expect(screen.getByRole('note')).toHaveTextContent(
      /^Imported from an OpenCode export \(exports\/ses_4f2a\.json\), 29 Nov 2026\. There is no live agent for this session: it ran elsewhere/,
    );
    const meter = await screen.findByRole('button', { name: /^Context 36,845/ });
    expect(meter).toHaveTextContent(/^Context 36,845 · provider’s count of the last call/);
    expect(meter).toHaveAttribute(
      'title',
      expect.stringMatching(/^The last model call's prompt as the provider counted it/),
    );
    await user.click(screen.getByRole('button', { name: /2 conversations/ }));
    const list = screen.getByRole('list', { name: 'Conversations in this workspace' });
    expect(
      within(list).getAllByText('Imported from an OpenCode export (exports/ses_4f2a.json), 29 Nov 2026'),
    ).toHaveLength(1);
  });

  it('POSTs plain text through appendMessagesToAPI, shows it, and says no agent is attached', async () => {
    const { user } = renderApp();
    await waitForHistory();
    await user.type(composer(), 'Check the PD leader schedule too');
    await user.keyboard('{Enter}');
    expect(await screen.findByText('Check the PD leader schedule too')).toBeInTheDocument();
    expect(messagesApi.appendMessagesToAPI).toHaveBeenCalledWith('demo', {
      text: 'Check the PD leader schedule too',
      sessionId: fixtures.workspace.defaultSessionId,
    });
    expect(requests.filter((r) => r.method === 'POST')).toHaveLength(1);
    expect(screen.getByText('Saved, but no agent is attached')).toBeInTheDocument();
    expect(composer()).toHaveValue('');
  });

  it('keeps Shift+Enter as a new line and sends //text as /text', async () => {
    const { user } = renderApp();
    await waitForHistory();
    await user.type(composer(), '//debug is a{Shift>}{Enter}{/Shift}command');
    expect(composer()).toHaveValue('//debug is a\ncommand');
    expect(requests.filter((r) => r.method === 'POST')).toHaveLength(0);
    await user.keyboard('{Enter}');
    await waitFor(() =>
      expect(messagesApi.appendMessagesToAPI).toHaveBeenCalledWith(
        'demo',
        expect.objectContaining({ text: '/debug is a\ncommand' }),
      ),
    );
  });

  it('answers /help locally: lists the commands, sends nothing, stores nothing', async () => {
    const { user } = renderApp();
    await waitForHistory();
    const before = requests.length;
    await user.type(composer(), '/help');
    await user.keyboard('{Enter}');
    const help = await screen.findByRole('article', { name: 'Commands (only visible to you)' });
    expect(await within(help).findByText('/debug [session-id]')).toBeInTheDocument();
    expect(within(help).getByText(/Only visible to you · disappears on refresh/)).toBeInTheDocument();
    expect(screen.getByRole('article', { name: 'Your command (only visible to you)' })).toHaveTextContent('/help');
    expect(requests.slice(before)).toEqual([]);
    expect(messagesApi.appendMessagesToAPI).not.toHaveBeenCalled();
    await expectNothingStored();
  });

  it('answers an unknown command with a local reply and sends nothing', async () => {
    const { user } = renderApp();
    await waitForHistory();
    const before = requests.length;
    await user.type(composer(), '/frobnicate now');
    await user.keyboard('{Enter}');
    expect(await screen.findByText('Unknown command')).toBeInTheDocument();
    expect(screen.getByText(/\/frobnicate is not a command/)).toBeInTheDocument();
    expect(requests.slice(before)).toEqual([]);
    expect(messagesApi.appendMessagesToAPI).not.toHaveBeenCalled();
    await expectNothingStored();
    expect(loadRequests()).toEqual([]);
  });

  it('lets a local message be dismissed', async () => {
    const { user } = renderApp();
    await waitForHistory();
    await user.type(composer(), '/help{Enter}');
    const help = await screen.findByRole('article', { name: 'Commands (only visible to you)' });
    await user.click(within(help).getByRole('button', { name: 'Dismiss' }));
    expect(screen.queryByRole('article', { name: 'Commands (only visible to you)' })).not.toBeInTheDocument();
  });

  it('offers an accessible autocomplete: arrows, Tab to complete, Esc to close', async () => {
    const { user } = renderApp();
    await waitForHistory();
    await user.type(composer(), '/');
    const list = screen.getByRole('listbox', { name: 'Commands' });
    expect(composer()).toHaveAttribute('aria-expanded', 'true');
    const options = within(list).getAllByRole('option');
    expect(options.map((o) => o.textContent)).toEqual([
      expect.stringContaining('/debug [session-id]'),
      expect.stringContaining('/help'),
    ]);
    expect(options[0]).toHaveAttribute('aria-selected', 'true');
    expect(within(list).getByText('Show what is filling the model context (only visible to you)')).toBeInTheDocument();
    await user.keyboard('{ArrowDown}');
    expect(within(list).getAllByRole('option')[1]).toHaveAttribute('aria-selected', 'true');
    expect(composer()).toHaveAttribute('aria-activedescendant', within(list).getAllByRole('option')[1]!.id);
    await user.keyboard('{Tab}');
    expect(composer()).toHaveValue('/help ');
    expect(screen.queryByRole('listbox')).not.toBeInTheDocument();
    await user.clear(composer());
    await user.type(composer(), '/de');
    expect(screen.getByRole('listbox')).toBeInTheDocument();
    await user.keyboard('{Escape}');
    expect(screen.queryByRole('listbox')).not.toBeInTheDocument();
    expect(composer()).toHaveAttribute('aria-expanded', 'false');
    await user.clear(composer());
    await user.type(composer(), '/de{Enter}');
    expect(composer()).toHaveValue('/debug ');
  });

  it('renders the agent’s Markdown safely: formatting and tables, never raw HTML', async () => {
    const message = (id: string, text: string) => ({
      id,
      sessionId: fixtures.workspace.defaultSessionId,
      timeCreated: 1,
      timeUpdated: 1,
      info: { role: 'assistant', time: { created: 1 } },
      parts: [{ id: `${id}-p`, type: 'text', text }],
      transcript: { role: 'assistant' as const, kind: 'message' as const, parts: [{ type: 'text' as const, text }] },
    });
    server.use(
      http.get('/api/workspace/demo/messages', () =>
        HttpResponse.json({
          sessionId: fixtures.workspace.defaultSessionId,
          messages: [
            message('m1', '## Cause\n\n**no index** on `merchant_id`\n\n| a | b |\n|---|---|\n| 1 | 2 |'),
            message(
              'm2',
              'before <img src=x onerror="alert(1)"><script>alert(2)</script> [x](javascript:alert(3)) after',
            ),
          ],
        }),
      ),
    );
    renderApp();
    const strong = await screen.findByText('no index');
    expect(strong.tagName).toBe('STRONG');
    expect(screen.getByRole('heading', { name: 'Cause' })).toBeInTheDocument();
    expect(screen.getByRole('table')).toBeInTheDocument();
    const unsafe = screen.getByText(/before/).closest('article')!;
    expect(unsafe.querySelector('img, script')).toBeNull();
    expect(unsafe.textContent).not.toContain('**');
    expect(unsafe.querySelector('a')?.getAttribute('href') ?? '').not.toMatch(/javascript/i);
  });

  it('says why the command list closed when nothing matches', async () => {
    const { user } = renderApp();
    await waitForHistory();
    await user.type(composer(), '/xyz');
    expect(screen.queryByRole('listbox')).not.toBeInTheDocument();
    expect(screen.getByText(/No command starts with \/xyz/)).toBeInTheDocument();
    expect(composer()).toHaveAccessibleDescription(/No command starts with \/xyz/);
  });

  it('focuses the composer on load, and the header meter opens /debug', async () => {
    const { user } = renderApp();
    await waitForHistory();
    expect(composer()).toHaveFocus();
    const meter = await screen.findByRole('button', { name: /^Context [\d,]+ \/ 200,000/ });
    await user.click(meter);
    expect(await screen.findByRole('region', { name: /^Context breakdown/ })).toBeInTheDocument();
    expect(messagesApi.appendMessagesToAPI).not.toHaveBeenCalled();
  });

  it('shows a clear page for a workspace that is missing or not yours', async () => {
    window.history.replaceState(null, '', '/w/elsewhere');
    server.use(
      http.get('/api/workspace/elsewhere', () =>
        HttpResponse.json({ error: { code: 'workspace_not_found', message: 'Workspace not found' } }, { status: 404 }),
      ),
    );
    renderApp();
    expect(await screen.findByRole('heading', { name: 'Workspace not found' })).toBeInTheDocument();
  });

  it('lists a subagent’s session under the conversation whose task call made it', async () => {
    const parent = fixtures.workspace.sessions[0]!;
    const child = {
      id: 'ses_child0000000000000000000',
      messageCount: 6,
      lastActiveAt: parent.lastActiveAt + 1000,
      title: 'Subagent task: read evidence/pd-hot-regions.txt and meta/clu…',
      contextUsed: 9100,
      contextSize: 200000,
      parentSessionId: parent.id,
    };
    server.use(
      http.get('/api/workspace/demo', () =>
        HttpResponse.json({ ...fixtures.workspace, sessions: [child, ...fixtures.workspace.sessions] }),
      ),
    );
    const { user } = renderApp();
    await waitForHistory();
    // Two conversations: the subagent's session is not one of them.
    const toggle = await screen.findByRole('button', { name: /^Conversation:/ });
    await waitFor(() => expect(toggle).toHaveTextContent('· 2 conversations'));
    await user.click(toggle);
    const menu = screen.getByRole('list', { name: 'Conversations in this workspace' });
    const top = [...menu.children].map((li) => li.querySelector(':scope > button')!.textContent);
    expect(top).toHaveLength(2);
    expect(top[0]).toContain(parent.title);
    const children = within(menu).getByRole('list', { name: `Subagents of ${parent.title}` });
    expect(children.closest('li')).toBe(menu.children[0]);
    expect(within(children).getByRole('button')).toHaveTextContent(
      /^Subagent: Subagent task: read evidence\/pd-hot-regions\.txt.*made by a task call/,
    );
  });
});
