/**
 * Titles in the API (issue 18 item 4, left open: the page computed a title the API did not return):
 * every conversations-list row carries `title`, computed where the row is built
 * (domain/conversation-row.ts, both stores) by the rule the page shows (shared/titles.ts
 * listRowTitle), and the MCP tool search_conversations answers the same title; so do the chat's
 * conversation read (`chat.conversation` `title`), MCP get_conversation and get_trace (the same rule over
 * the same stored row / the trace's root span). On the emitter corpus
 * (test/fixtures/emitters: real traces with `unknown_service:*` services, Logfire message templates
 * and raw JSON inputs) and on the demo data: no title is an SDK placeholder, an unformatted template
 * or a JSON document.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { postJson, repoRoot, startTestServer, tempDir } from './server-harness.js';
import { call, httpClient, prepareMcpData } from '../helpers/mcp.js';
import { isJsonDocument } from '../../src/shared/titles.js';
import type { RunningLoupe } from '../../src/main/serve.js';

const DIR = path.join(repoRoot, 'test/fixtures/emitters');
const fixtures = readdirSync(DIR)
  .filter((n) => existsSync(path.join(DIR, n, 'trace.json')))
  .sort()
  .map((name) => ({ name, path: (existsSync(path.join(DIR, name, 'expect.json')) ? JSON.parse(readFileSync(path.join(DIR, name, 'expect.json'), 'utf8')).path : undefined) as string | undefined }));

let app: RunningLoupe;
let c: Client;
const projects: string[] = [];

beforeAll(async () => {
  const dataDir = tempDir('loupe-titles-');
  await prepareMcpData(dataDir, { big: false });
  app = await startTestServer({ dataDir });
  for (const f of fixtures) {
    const project = `corpus/${f.name}`;
    const res = await fetch(`${app.url}${f.path ?? '/v1/traces'}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-project-id': project, ...(f.path ? { authorization: 'Basic cGstbGYteHh4OnNrLWxmLXh4eA==' } : {}) },
      body: readFileSync(path.join(DIR, f.name, 'trace.json')),
    });
    expect(res.status, `${f.name}: ${await res.clone().text()}`).toBe(200);
    projects.push(project);
  }
  projects.push('local/demo');
  c = await httpClient(app.url, '2026-07-28');
}, 300_000);
afterAll(async () => {
  await c?.close();
  await app?.close();
});

type Row = { kind: string; conversation_id: string; title: string; conversation_name: string | null; trace_root: { service_name: string | null } | null };

describe('titles in the API', () => {
  it('every list row has a title by the page\'s rule: never unknown_service alone, a template or a JSON document', async () => {
    let rows = 0;
    let bareTraces = 0;
    let unknownServices = 0;
    for (const project of projects) {
      const { status, body } = await postJson(app.url, '/app/conversations', { project_id: project, limit: 100 });
      expect(status).toBe(200);
      for (const r of body.conversations as Row[]) {
        rows += 1;
        const where = `${project} ${r.kind} ${r.conversation_id}: ${JSON.stringify(r.title)}`;
        expect(typeof r.title, where).toBe('string');
        expect(r.title.trim(), where).not.toBe('');
        expect(r.title, where).not.toMatch(/^unknown_service(:|$)/i);
        expect(r.title, where).not.toMatch(/\{[^{}]*\}/);
        expect(isJsonDocument(r.title), where).toBe(false);
        if (r.kind === 'conversation' && r.conversation_name && !isJsonDocument(r.conversation_name)) expect(r.title, where).toBe(r.conversation_name.trim());
        if (r.kind === 'trace') {
          bareTraces += 1;
          if (r.trace_root?.service_name && /^unknown_service/i.test(r.trace_root.service_name)) unknownServices += 1;
        }
      }
    }
    // The corpus holds what the rule is for: bare traces, one from a service its SDK could not name (unknown_service:…).
    expect(rows).toBeGreaterThanOrEqual(30);
    expect(bareTraces).toBeGreaterThanOrEqual(10);
    expect(unknownServices).toBeGreaterThanOrEqual(1);
  });

  it('the demo conversations are titled by their first user message; search_conversations answers the same titles', async () => {
    const { body } = await postJson(app.url, '/app/conversations', { project_id: 'local/demo', limit: 50 });
    const order = (body.conversations as Row[]).find((r) => r.conversation_id === 'conv-order-a1187')!;
    expect(order.title).toBe('Where is order A-1187?');
    for (const project of projects) {
      const listed = (await postJson(app.url, '/app/conversations', { project_id: project, limit: 20, sort_by: [{ field: 'last_activity', direction: 'desc' }] })).body.conversations as Row[];
      const a = await call(c, 'search_conversations', { project, limit: 20 });
      expect(a.isError, a.text).toBe(false);
      const got = a.structured.conversations as { id: string; title: string }[];
      expect(got.map((r) => r.id), project).toEqual(listed.slice(0, got.length).map((r) => r.conversation_id));
      // The tool cuts a title at 160 characters (with a marker); up to there it is the row's.
      for (const [i, r] of got.entries()) expect(r.title.slice(0, 160), `${project} ${r.id}`).toBe(listed[i]!.title.slice(0, 160));
    }
  });

  it('the chat of a conversation, get_conversation and get_trace carry the list row\'s title', async () => {
    let conversations = 0;
    let traces = 0;
    for (const project of projects) {
      const rows = (await postJson(app.url, '/app/conversations', { project_id: project, limit: 100 })).body.conversations as Row[];
      for (const r of rows) {
        const where = `${project} ${r.kind} ${r.conversation_id}`;
        if (r.kind === 'conversation') {
          conversations += 1;
          const { body: chat } = await postJson(app.url, '/agents/conversations/chat', { project_id: project, conversation_id: r.conversation_id, limit: 1 });
          expect(chat.title, where).toBe(r.title);
          if (conversations % 4 === 1) {
            const a = await call(c, 'get_conversation', { project, conversation_id: r.conversation_id, limit: 1 });
            expect(a.isError, a.text).toBe(false);
            expect(a.structured.title, where).toBe(r.title);
            expect(a.text.split('\n')[0], where).toContain(`"${r.title}"`);
          }
        } else {
          traces += 1;
          const a = await call(c, 'get_trace', { project, trace_id: r.conversation_id, limit: 5 });
          expect(a.isError, a.text).toBe(false);
          expect(a.structured.title, where).toBe(r.title);
          expect(a.text.split('\n')[0], where).toContain(r.title);
        }
      }
    }
    expect(conversations).toBeGreaterThanOrEqual(10);
    expect(traces).toBeGreaterThanOrEqual(10);
    // An unknown conversation has no title (an empty chat, not an error).
    expect((await postJson(app.url, '/agents/conversations/chat', { project_id: 'local/demo', conversation_id: 'no-such-conversation' })).body.title).toBeNull();
  }, 300_000);
});
