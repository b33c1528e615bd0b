/**
 * POST /datasets/from-conversations (semantics §11): the chosen conversations, read through the
 * same chat view the UI shows, written as SFT JSONL (`{messages, tools}` per conversation) in
 * `<dataDir>/datasets/`. The returned file:// URL is usable as an SFT job's training_data_url.
 */
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { OpParsedInput, OpOutput } from '../../../shared/contract/index.js';
import type { ServiceContext } from '../context.js';

interface ChatMsg {
  type: string;
  user_message: { text: string } | null;
  assistant_message: { text: string } | null;
  tool_call: { tool_name: string | null; tool_arguments: string | null; tool_result: string | null } | null;
  agent_start: { system_instructions: string | null } | null;
}
interface ConversationView {
  turns: { messages: ChatMsg[] }[];
  has_more: boolean;
}

type Line = { role: string; content: string | null; tool_calls?: unknown[]; tool_call_id?: string };

/** Chat-view messages → chat-completions messages (system from the first agent start). */
export function toSftMessages(turns: { messages: ChatMsg[] }[]): Line[] {
  const out: Line[] = [];
  let calls = 0;
  for (const m of turns.flatMap((t) => t.messages)) {
    if (m.type === 'agent_start' && m.agent_start?.system_instructions && !out.some((x) => x.role === 'system')) {
      out.unshift({ role: 'system', content: m.agent_start.system_instructions });
    } else if (m.type === 'user_message' && m.user_message) out.push({ role: 'user', content: m.user_message.text });
    else if (m.type === 'assistant_message' && m.assistant_message?.text) out.push({ role: 'assistant', content: m.assistant_message.text });
    else if (m.type === 'tool_call' && m.tool_call) {
      const id = `call_${++calls}`;
      out.push({ role: 'assistant', content: null, tool_calls: [{ id, type: 'function', function: { name: m.tool_call.tool_name ?? 'tool', arguments: m.tool_call.tool_arguments ?? '{}' } }] });
      out.push({ role: 'tool', tool_call_id: id, content: m.tool_call.tool_result ?? '' });
    }
  }
  return out;
}

export async function fromConversations(input: OpParsedInput<'datasets.fromConversations'>, ctx: ServiceContext): Promise<OpOutput<'datasets.fromConversations'>> {
  // Lazy: dispatch imports the handler registry, which imports this module.
  const { dispatch } = await import('../../transport/dispatch.js');
  const lines: string[] = [];
  const skipped: string[] = [];
  for (const conversation_id of input.conversation_ids) {
    const turns: ConversationView['turns'] = [];
    for (let offset = 0; ; offset += 50) {
      const view = (await dispatch('chat.conversation', { project_id: input.project_id, conversation_id, limit: 50, offset }, ctx, { trusted: true })) as ConversationView;
      turns.unshift(...view.turns); // pages go newest first; turns inside a page oldest first
      if (!view.has_more || view.turns.length === 0) break;
    }
    const messages = toSftMessages(turns);
    if (!messages.some((m) => m.role === 'assistant' && m.content)) skipped.push(conversation_id);
    else lines.push(JSON.stringify({ messages, tools: [] }));
  }
  const dir = path.join(ctx.dataDir, 'datasets');
  fs.mkdirSync(dir, { recursive: true });
  const name = input.name ?? `${input.project_id.replace(/[^A-Za-z0-9._-]+/g, '_')}-${new Date().toISOString().replace(/[:.]/g, '-')}`;
  const file = path.join(dir, `${name}.jsonl`);
  fs.writeFileSync(file, lines.length ? `${lines.join('\n')}\n` : '');
  return { url: pathToFileURL(file).href, path: file, lines: lines.length, skipped };
}
