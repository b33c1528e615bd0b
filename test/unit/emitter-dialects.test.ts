/**
 * Pieces of the emitter dialects (service/ingest/dialects.ts) and the error headline
 * (domain/chat/errors.ts) on the text shapes the emitters write; the corpus test
 * (test/http/emitter-corpus.test.ts) reads whole captured traces through them.
 */
import { describe, expect, it } from 'vitest';
import { claudeContext, reactParts } from '../../src/main/service/ingest/dialects.js';
import { splitError } from '../../src/main/domain/chat/errors.js';

describe('BeeAI ReAct instruction lines', () => {
  it('reads a tool call with its thought', () => {
    expect(reactParts('Thought: I need the weather.\nFunction Name: get_weather\nFunction Input: {"city":"Lisbon"}\n')).toEqual([
      { type: 'reasoning', content: 'I need the weather.' },
      { type: 'tool_call', id: null, name: 'get_weather', arguments: { city: 'Lisbon' } },
    ]);
  });
  it('keeps a multi-paragraph final answer whole', () => {
    expect(reactParts('Thought: done.\nFinal Answer: Sunny.\n\nPack a jacket.')).toEqual([
      { type: 'reasoning', content: 'done.' },
      { type: 'text', content: 'Sunny.\n\nPack a jacket.' },
    ]);
  });
  it('leaves other text alone', () => {
    expect(reactParts('It is sunny.')).toBeNull();
  });
});

describe('Claude Code new_context blocks', () => {
  it('reads user text and tool results by call id', () => {
    expect(claudeContext('[USER]\nWhere is my order?')).toEqual([{ role: 'user', content: 'Where is my order?' }]);
    expect(claudeContext('[TOOL RESULT: toolu_1]\n[{"type":"text","text":"shipped"}]')).toEqual([
      { role: 'tool', parts: [{ type: 'tool_call_response', id: 'toolu_1', response: 'shipped' }] },
    ]);
    expect(claudeContext('[USER PROMPT]\nhi\n\n[ASSISTANT]\nhello')).toEqual([{ role: 'user', content: 'hi' }, { role: 'assistant', content: 'hello' }]);
  });
});

describe('error headline', () => {
  it('cuts a JS stack from the message it follows', () => {
    const t = 'Order service unavailable\n\nError: Order service unavailable\n    at tool (file:///app.mjs:42:44)\n    at run (file:///x.js:1:2)';
    expect(splitError(t)).toEqual({ message: 'Order service unavailable', detail: t });
  });
  it('uses the stack header when the text is a bare err.stack', () => {
    const t = 'TypeError: x is undefined\n    at f (a.js:1:1)';
    expect(splitError(t)).toEqual({ message: 'TypeError: x is undefined', detail: t });
  });
  it('takes a Python traceback\'s last line', () => {
    const t = 'Traceback (most recent call last):\n  File "a.py", line 3, in <module>\n    f()\nValueError: boom';
    expect(splitError(t)).toEqual({ message: 'ValueError: boom', detail: t });
  });
  it('reads Java and .NET frames', () => {
    expect(splitError('java.io.IOException: closed\n\tat com.x.Y.z(Y.java:3)').message).toBe('java.io.IOException: closed');
    expect(splitError('System.TimeoutException: slow\n   at X.Y() in C:\\a.cs:line 4').message).toBe('System.TimeoutException: slow');
  });
  it('keeps a message without a trace as it is', () => {
    expect(splitError('ToolError: failed!\n    Error: Order service unavailable')).toEqual({ message: 'ToolError: failed!\n    Error: Order service unavailable', detail: null });
    expect(splitError(null)).toEqual({ message: null, detail: null });
  });
});
