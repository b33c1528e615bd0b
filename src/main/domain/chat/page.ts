/**
 * One page of a trace's chat (extension 'chat.tracePage', decision 0011): the turn header and the
 * messages [offset, offset + limit) of the walk, walked no further than needed. Pure; run where the
 * spans are read (the SQLite adapter's read workers, over lazily loaded spans; other adapters over the
 * spans they read). Feedback is added by the service.
 */
import type { Turn } from '../../../shared/contract/chat.js';
import type { ChatSpan } from './span.js';
import type { ChatMessage } from './messages.js';
import { buildTree } from './tree.js';
import { turnFromParts } from './turn.js';
import { walkMessages } from './walk.js';

export interface TraceChatPage {
  /** The Turn of chat.trace without its messages (feedback null: the service adds it). */
  turn: Omit<Turn, 'messages'>;
  messages: ChatMessage[];
  has_more: boolean;
  /** Known once the whole trace was walked, else null. */
  total_messages: number | null;
}

/** What a store can tell cheaply so the walk need not read every span (walk.ts walkMessages options). */
export interface MessageHints {
  userInput: boolean;
  toolPartSpans: ReadonlySet<string>;
}

export function chatPage(traceId: string, spans: readonly ChatSpan[], hints: MessageHints | null, offset: number, limit: number): TraceChatPage {
  const tree = buildTree(spans);
  const end = offset + limit;
  const walked = walkMessages(spans, tree, { limit: end + 1, noUserInput: hints ? !hints.userInput : false, toolPartSpans: hints?.toolPartSpans });
  const { messages, ...turn } = turnFromParts(traceId, spans, tree, walked.messages.slice(offset, end), null);
  return { turn, messages, has_more: walked.messages.length > end, total_messages: walked.complete ? walked.messages.length : null };
}
