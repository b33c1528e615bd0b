/**
 * What happens in a demo turn, as data: the user's message, then the agent's steps (model calls
 * that reason, call tools or answer; hand-offs to a sub-agent). The generator turns this into spans.
 */
import type { AgentKey } from './agents.js';

export interface ToolCall {
  name: string;
  args: Record<string, unknown>;
  result: unknown;
  /** The tool failed: span status ERROR with this error.type. */
  error?: { type: string; message: string };
}

export type Step =
  | { kind: 'model'; reasoning?: string; tools?: ToolCall[]; text?: string; error?: { type: string; message: string } }
  | { kind: 'delegate'; agent: AgentKey; task: string; steps: Step[]; answer: string };

export interface TurnScript {
  user: string;
  steps: Step[];
  answer: string | null;
  /** Context compaction before this turn (svc.compaction.* on the invoke_agent span). */
  compaction?: { summary: string; itemsBefore: number; itemsAfter: number };
  feedback?: { thumbs?: 'up' | 'down'; note?: string };
}

export interface ConversationScript {
  id: string;
  agent: AgentKey;
  userId: string;
  turns: TurnScript[];
  /** Feedback on the conversation as a whole. */
  feedback?: { rating?: number; note?: string };
}
