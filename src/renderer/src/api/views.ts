/**
 * Renderer-side names for the contract's view types (interface.md "Turn", "Chat message",
 * "Conversation chat view", span and group rows). Derived from the contract so they never drift.
 */
import type { OpOutput } from '../../../shared/contract/index';

export type { FeedbackRecord } from '../../../shared/contract/common';
export type ConversationView = OpOutput<'chat.conversation'>;
export type Turn = OpOutput<'chat.trace'>;
export type ChatMessage = Turn['messages'][number];
export type SpanRow = OpOutput<'spans.query'>['spans'][number];
export type GroupRow = OpOutput<'spans.query'>['groups'][number];
