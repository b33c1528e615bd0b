/** Titles of conversations and traces (issue 18 item 4, shared/titles.ts): the cases the issue names. */
import { describe, expect, it } from 'vitest';
import { conversationTitle, knownService, operationTitle, traceTitle, traceTitleText } from '../../src/shared/titles.js';

describe('titles', () => {
  it('a trace: the service when known, else the agent, else the root operation; never `unknown_service:` alone', () => {
    expect(traceTitleText(traceTitle({ service: 'checkout-api', root: 'invoke_agent support', agent: 'support' }))).toBe('checkout-api: invoke_agent support');
    for (const service of ['unknown_service', 'unknown_service:python', 'unknown_service:node', '', null]) {
      expect(knownService(service)).toBeNull();
      expect(traceTitleText(traceTitle({ service, root: 'Agent.run', agent: 'Weather agent' }))).toBe('Weather agent');
      expect(traceTitleText(traceTitle({ service, root: 'Agent.run', agent: null }))).toBe('Agent.run');
    }
    expect(traceTitleText(traceTitle({ service: 'unknown_service:python', root: null, agent: null }))).toBeNull();
  });

  it('a Logfire message template is never shown unformatted; a JSON document is no title', () => {
    expect(operationTitle('Message with {request_data[model]!r}')).toBe('Message with …');
    expect(traceTitleText(traceTitle({ service: 'unknown_service', root: 'Message with {request_data[model]!r}', agent: null }))).toBe('Message with …');
    expect(traceTitleText(traceTitle({ service: 'bot', root: 'Chat Completion with {request_data[model]!r}', agent: 'triage' }))).toBe('bot: triage');
    expect(operationTitle('{"messages": [{"role": "user"}]}')).toBeNull();
    expect(conversationTitle({ name: null, firstMessage: '{"input": "hi", "chat_history": []}', agents: ['agno'], id: 'c1' })).toBe('agno');
    expect(conversationTitle({ name: null, firstMessage: '[{"role":"user","content":"hi"}]', agents: [], id: 'c1' })).toBe('c1');
    expect(conversationTitle({ name: null, firstMessage: 'Where is my order {A-1187}?', agents: [], id: 'c1' })).toBe('Where is my order {A-1187}?');
    expect(conversationTitle({ name: 'Refund request', firstMessage: 'hi', id: 'c1' })).toBe('Refund request');
  });
});
